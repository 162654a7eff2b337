"""`/healthz` (the process is alive) and `/readyz` (it can serve: its database answers).

Redis is not a condition of readiness: every use of it has a fallback (rate limits counted per
replica, events waiting in the outbox, indexing resuming where it stopped), so a Redis outage
must not take every pod out of its Service. `/readyz` still pings it, says `degraded` in its
answer and counts `redis_errors_total{operation="readiness"}`, which the RedisErrors alert
watches. `/metrics` is not here: it has a listener of its own (libs/common/metrics.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from aiohttp import web

from libs.common.db import check_database
from libs.common.encoding import json_response
from libs.common.metrics import REDIS_ERRORS
from libs.common.state import DB_POOL, REDIS

log = logging.getLogger(__name__)

# Each check's own bound; the readiness probe's timeout in the manifests is longer.
READY_TIMEOUT_SECONDS = 2.0


async def _answers(name: str, check: Awaitable[object]) -> bool:
    try:
        await asyncio.wait_for(check, READY_TIMEOUT_SECONDS)
    except Exception as exc:  # any failure is "does not answer"; the reason goes to the log
        log.warning("readiness check %s failed: %r", name, exc)
        return False
    return True


async def healthz(request: web.Request) -> web.Response:
    """Alive: the event loop answers."""
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready: the database answers within two seconds. Redis down is `degraded`, still ready."""
    app = request.app
    results: dict[str, str] = {}
    ready = True
    if DB_POOL in app:
        database = await _answers("database", check_database(app))
        results["database"] = "ok" if database else "unavailable"
        ready = database
    if REDIS in app:
        redis = await _answers("redis", app[REDIS].ping())
        results["redis"] = "ok" if redis else "degraded"
        if not redis:
            REDIS_ERRORS.labels("readiness").inc()
    if ready:
        return json_response({"status": "ready", "checks": results})
    return json_response(
        {"code": "SERVICE_UNAVAILABLE", "message": "not ready", "details": results},
        status=503,
    )


def add_health_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", healthz, name="healthz")
    app.router.add_get("/readyz", readyz, name="readyz")
