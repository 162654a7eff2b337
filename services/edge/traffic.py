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
from dataclasses import dataclass
from datetime import UTC, datetime

import redis.asyncio as aioredis
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from multidict import CIMultiDictProxy
from prometheus_client import Counter
from redis.exceptions import RedisError

from libs.common.client_address import Network, resolve_client_address
from libs.common.metrics import REDIS_ERRORS
from services.edge.store import DOMAIN, Domain

log = logging.getLogger(__name__)

BATCH = 500
# About a day of a busy edge; the traffic part reads far behind the end of it.
STREAM_MAX_LENGTH = 1_000_000
RETRY_SECONDS = 1.0

DROPPED = Counter("edge_requests_dropped_total", "Request log entries not written, by why.", ["reason"])
WRITTEN = Counter("edge_requests_logged_total", "Request log entries written to the stream.")


@dataclass(frozen=True, slots=True)
class Entry:
    """What a request leaves for its log entry: references and numbers only, read into text by the
    writer, off the answer's path."""

    started: float
    ended: float
    domain: Domain
    method: str
    path: str
    status: int
    size: int
    peer: str | None
    headers: CIMultiDictProxy[str]


def occurred_at(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def fields(entry: Entry, proxies: tuple[Network, ...]) -> dict[str, str]:
    """The stream entry as the traffic part reads it (services/traffic/capture.py); empty fields left out."""
    headers = entry.headers
    values = {
        "occurredAt": occurred_at(entry.started),
        "host": entry.domain.hostname,
        "path": entry.path,
        "method": entry.method,
        "status": str(entry.status),
        "userAgent": headers.get("User-Agent", ""),
        "ip": resolve_client_address(entry.peer, headers.getall("X-Forwarded-For", ()), proxies),
        "referer": headers.get("Referer", ""),
        "bytes": str(entry.size),
        "durationMs": f"{(entry.ended - entry.started) * 1000:.1f}",
        "signature": headers.get("Signature", ""),
        "signatureInput": headers.get("Signature-Input", ""),
        "signatureAgent": headers.get("Signature-Agent", ""),
        "organizationId": entry.domain.organization_id,
        "appId": entry.domain.app_id,
        "domainId": entry.domain.domain_id,
    }
    return {name: value for name, value in values.items() if value}


def resp(*args: bytes) -> bytes:
    """One command in Redis's protocol (RESP): an array of bulk strings."""
    return b"*%d\r\n%b" % (len(args), b"".join(b"$%d\r\n%b\r\n" % (len(arg), arg) for arg in args))


def xadd(stream: bytes, values: dict[str, str]) -> bytes:
    """`XADD stream MAXLEN ~ STREAM_MAX_LENGTH * field value ...`, encoded."""
    pairs = (item.encode() for pair in values.items() for item in pair)
    return resp(b"XADD", stream, b"MAXLEN", b"~", b"%d" % STREAM_MAX_LENGTH, b"*", *pairs)


class RequestLog:
    def __init__(self, redis: aioredis.Redis, stream: str, capacity: int, proxies: tuple[Network, ...]) -> None:
        self._redis = redis
        self._stream = stream.encode()
        self._proxies = proxies
        self._queue: asyncio.Queue[Entry] = asyncio.Queue(capacity)

    def record(self, entry: Entry) -> None:
        """Queue one entry; when the queue is full it is dropped and counted."""
        try:
            self._queue.put_nowait(entry)
        except asyncio.QueueFull:
            DROPPED.labels("queue_full").inc()

    async def write_batch(self) -> int:
        """Wait for an entry, then write it and whatever else waits (up to BATCH) in one round trip."""
        batch = [await self._queue.get()]
        while len(batch) < BATCH and not self._queue.empty():
            batch.append(self._queue.get_nowait())
        try:
            await self._send([xadd(self._stream, fields(entry, self._proxies)) for entry in batch])
        except RedisError as exc:
            REDIS_ERRORS.labels("edge_request_log").inc()
            DROPPED.labels("redis_error").inc(len(batch))
            log.warning("request log: %d entries dropped, Redis refused them (%r)", len(batch), exc)
            await asyncio.sleep(RETRY_SECONDS)
            return 0
        WRITTEN.inc(len(batch))
        return len(batch)

    async def _send(self, commands: list[bytes]) -> None:
        """Send the commands on one connection of the client's pool and read every reply.

        Encoded here rather than by a redis-py pipeline: its pure-Python encoder took a fifth of a
        busy edge worker's time for these commands of thirty-odd arguments.
        """
        pool = self._redis.connection_pool
        connection = await pool.get_connection()  # type: ignore[no-untyped-call]
        try:
            await connection.send_packed_command(b"".join(commands))
            for _ in commands:
                await connection.read_response()
        except BaseException:
            await connection.disconnect()  # replies may be left unread: never lend it again as it is
            raise
        finally:
            await pool.release(connection)

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


def request_log_middleware(requests: RequestLog) -> Middleware:
    """Record every request answered for an App domain (not the edge's own endpoints, nor a host
    that is no App's: those are no organization's traffic)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        started = time.time()
        response = await handler(request)
        domain = request.get(DOMAIN)
        if domain is None:
            return response
        if isinstance(response, web.Response) and not response.prepared:
            size = len(response.body) if isinstance(response.body, bytes) else 0
        else:
            size = response.body_length
        path = request.raw_path.partition("?")[0]
        requests.record(
            Entry(
                started,
                time.time(),
                domain,
                request.method,
                path,
                response.status,
                size,
                request.remote,
                request.headers,
            )
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
