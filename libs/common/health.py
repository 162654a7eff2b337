"""`/healthz` (the process is alive) and `/readyz` (its database and Redis answer).

`/metrics` is not here: it has a listener of its own (libs/common/metrics.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from aiohttp import web

from libs.common.db import check_database
from libs.common.encoding import json_response
from libs.common.keys import DB_POOL, REDIS

log = logging.getLogger(__name__)

READY_TIMEOUT_SECONDS = 2.0


async def healthz(request: web.Request) -> web.Response:
    """Alive: the event loop answers."""
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready: every backing store this part uses answers within two seconds."""
    app = request.app
    checks: dict[str, Awaitable[object]] = {}
    if DB_POOL in app:
        checks["database"] = check_database(app)
    if REDIS in app:
        checks["redis"] = app[REDIS].ping()
    results = {}
    for name, check in checks.items():
        try:
            await asyncio.wait_for(check, READY_TIMEOUT_SECONDS)
            results[name] = "ok"
        except Exception as exc:  # any failure means not ready; the reason goes to the log
            log.warning("readiness check %s failed: %r", name, exc)
            results[name] = "unavailable"
    if all(state == "ok" for state in results.values()):
        return json_response({"status": "ready", "checks": results})
    return json_response(
        {"code": "SERVICE_UNAVAILABLE", "message": "not ready", "details": results},
        status=503,
    )


def add_health_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", healthz, name="healthz")
    app.router.add_get("/readyz", readyz, name="readyz")
