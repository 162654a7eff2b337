"""The Redis client (redis-py's asyncio API): made with the app, closed at its cleanup.

Creating the client does no I/O (it connects on first use), so `create_app` can make it and
hand it to middlewares that need it at construction, such as the session storage.

The pool holds at most MAX_CONNECTIONS per process, and a request finding them all busy waits
up to POOL_WAIT_SECONDS for one to come back (a `BlockingConnectionPool`) rather than failing at
once: a burst queues for a moment instead of turning into errors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from aiohttp import web

from libs.common.state import REDIS

SOCKET_TIMEOUT_SECONDS = 1.0
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
    )
    return aioredis.Redis.from_pool(pool)  # closing the client closes its pool


def attach_redis(app: web.Application, client: aioredis.Redis) -> None:
    """Store `client` in the app and close it when the app shuts down."""
    app[REDIS] = client

    async def close_at_cleanup(app: web.Application) -> AsyncIterator[None]:
        yield
        await client.aclose()

    app.cleanup_ctx.append(close_at_cleanup)
