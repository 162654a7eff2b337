"""The request log: one entry for every request the edge answered on an App's domain, appended to
the Redis stream `<REDIS_PREFIX>edge.requests` for the traffic part (docs/architecture.md, "The
edge").

Nothing of it is on the answer's path: a request puts its entry in a bounded queue and goes on;
a background task writes what waits in one pipelined batch at a time. A full queue (Redis slower
than the traffic) or a failed write drops entries, counted in `edge_requests_dropped_total`,
never delaying an answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import redis.asyncio as aioredis
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from prometheus_client import Counter
from redis.exceptions import RedisError

from libs.common.client_address import client_address
from libs.common.metrics import REDIS_ERRORS
from services.edge.store import DOMAIN

log = logging.getLogger(__name__)

Entry = dict[str, str]

BATCH = 500
# About a day of a busy edge; the traffic part reads far behind the end of it.
STREAM_MAX_LENGTH = 1_000_000
RETRY_SECONDS = 1.0

DROPPED = Counter("edge_requests_dropped_total", "Request log entries not written, by why.", ["reason"])
WRITTEN = Counter("edge_requests_logged_total", "Request log entries written to the stream.")

FIELDS = (
    "occurredAt", "host", "path", "method", "status", "userAgent", "ip", "referer", "bytes", "durationMs",
    "signature", "signatureInput", "signatureAgent", "organizationId", "appId", "domainId",
)  # fmt: skip


def occurred_at(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class RequestLog:
    def __init__(self, redis: aioredis.Redis, stream: str, capacity: int) -> None:
        self._redis = redis
        self._stream = stream
        self._queue: asyncio.Queue[Entry] = asyncio.Queue(capacity)

    def record(self, entry: Entry) -> None:
        """Queue one entry (its keys among FIELDS); when the queue is full it is dropped and counted."""
        try:
            self._queue.put_nowait(entry)
        except asyncio.QueueFull:
            DROPPED.labels("queue_full").inc()

    async def write_batch(self) -> int:
        """Wait for an entry, then write it and whatever else waits (up to BATCH) in one round trip."""
        batch = [await self._queue.get()]
        while len(batch) < BATCH and not self._queue.empty():
            batch.append(self._queue.get_nowait())
        pipeline = self._redis.pipeline(transaction=False)
        for entry in batch:
            pipeline.xadd(self._stream, {name: entry.get(name, "") for name in FIELDS},
                          maxlen=STREAM_MAX_LENGTH, approximate=True)  # fmt: skip
        try:
            await pipeline.execute()
        except RedisError as exc:
            REDIS_ERRORS.labels("edge_request_log").inc()
            DROPPED.labels("redis_error").inc(len(batch))
            log.warning("request log: %d entries dropped, Redis refused them (%r)", len(batch), exc)
            await asyncio.sleep(RETRY_SECONDS)
            return 0
        WRITTEN.inc(len(batch))
        return len(batch)

    async def run(self) -> None:
        while True:
            await self.write_batch()

    @property
    def waiting(self) -> int:
        return self._queue.qsize()

    async def flush(self) -> None:
        """Write what waits (at shutdown)."""
        while not self._queue.empty():
            await self.write_batch()


def request_log_middleware(requests: RequestLog, skip: web.RequestKey[bool]) -> Middleware:
    """Record every answered request but those marked `skip` (the edge's own endpoints)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        wall, started = time.time(), time.perf_counter()
        response = await handler(request)
        if request.get(skip):
            return response
        if isinstance(response, web.Response) and not response.prepared:
            size = len(response.body) if isinstance(response.body, bytes) else 0
        else:
            size = response.body_length
        domain = request.get(DOMAIN)
        headers = request.headers
        requests.record(
            {
                "occurredAt": occurred_at(wall),
                "host": headers.get("Host", ""),
                "path": request.raw_path.partition("?")[0],
                "method": request.method,
                "status": str(response.status),
                "userAgent": headers.get("User-Agent", ""),
                "ip": client_address(request),
                "referer": headers.get("Referer", ""),
                "bytes": str(size),
                "durationMs": f"{(time.perf_counter() - started) * 1000:.1f}",
                "signature": headers.get("Signature", ""),
                "signatureInput": headers.get("Signature-Input", ""),
                "signatureAgent": headers.get("Signature-Agent", ""),
                "organizationId": domain.organization_id if domain else "",
                "appId": domain.app_id if domain else "",
                "domainId": domain.domain_id if domain else "",
            }
        )
        return response

    return middleware


async def running(log_: RequestLog) -> AsyncIterator[None]:
    """Write the log in the background for as long as the app runs; what waits at the end is written."""
    task = asyncio.create_task(log_.run(), name="edge-request-log")
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        try:
            await asyncio.wait_for(log_.flush(), 2.0)
        except (TimeoutError, RedisError):
            DROPPED.labels("shutdown").inc(log_.waiting)
