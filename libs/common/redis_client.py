"""The Redis client (redis-py's asyncio API): made with the app, closed at its cleanup.

Creating the client does no I/O (it connects on first use), so `create_app` can make it and
hand it to middlewares that need it at construction, such as the session storage.

A Redis that restarted leaves every pooled connection broken, each failing once on its next use:
an operation whose connection turns out broken is sent again, once, on a fresh one. A timeout is
never retried (a frozen Redis would hold every caller for twice as long). Every connection
reports whether Redis answers to one `Outage`, so an outage is two log lines in the whole process,
whatever failed during it.

The pool holds at most MAX_CONNECTIONS per process, and a request finding them all busy waits
up to POOL_WAIT_SECONDS for one to come back (a `BlockingConnectionPool`) rather than failing at
once: a burst queues for a moment instead of turning into errors.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as aioredis
from aiohttp import web
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from libs.common.outage import Outage
from libs.common.state import REDIS

log = logging.getLogger(__name__)

SOCKET_TIMEOUT_SECONDS = 1.0
# This process's view of whether Redis answers.
REDIS_OUTAGE = Outage("redis", log)
UNAVAILABLE = (RedisConnectionError, RedisTimeoutError)


class WatchedConnection(aioredis.Connection):
    """A connection that tells REDIS_OUTAGE when Redis stops answering and when it answers again."""

    async def connect(self) -> None:
        try:
            await super().connect()  # type: ignore[no-untyped-call]
        except UNAVAILABLE as exc:
            REDIS_OUTAGE.failed(exc)
            raise

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            response = await super().read_response(*args, **kwargs)
        except RedisTimeoutError as exc:
            REDIS_OUTAGE.failed(exc)
            raise
        # A connection found broken here is retried on a fresh one, whose connect says whether
        # Redis answers: one left broken by a restart is no outage.
        REDIS_OUTAGE.answered()
        return response


def is_redis_unavailable(exc: BaseException) -> bool:
    return isinstance(exc, UNAVAILABLE)


MAX_CONNECTIONS = 100
POOL_WAIT_SECONDS = 1.0


def create_redis(url: str) -> aioredis.Redis:
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=MAX_CONNECTIONS,
        timeout=POOL_WAIT_SECONDS,
        socket_timeout=SOCKET_TIMEOUT_SECONDS,
        socket_connect_timeout=SOCKET_TIMEOUT_SECONDS,
        health_check_interval=30,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        connection_class=WatchedConnection,
    )
    return aioredis.Redis.from_pool(pool)  # closing the client closes its pool


def attach_redis(app: web.Application, client: aioredis.Redis) -> None:
    """Store `client` in the app and close it when the app shuts down."""
    app[REDIS] = client

    async def close_at_cleanup(app: web.Application) -> AsyncIterator[None]:
        yield
        await client.aclose()

    app.cleanup_ctx.append(close_at_cleanup)
