"""The Redis client (redis-py's asyncio API): made with the app, closed at its cleanup.

Creating the client does no I/O (it connects on first use), so `create_app` can make it and
hand it to middlewares that need it at construction, such as the session storage.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from aiohttp import web

from libs.common.state import REDIS

SOCKET_TIMEOUT_SECONDS = 1.0


def create_redis(url: str) -> aioredis.Redis:
    return aioredis.Redis.from_url(
        url,
        socket_timeout=SOCKET_TIMEOUT_SECONDS,
        socket_connect_timeout=SOCKET_TIMEOUT_SECONDS,
        health_check_interval=30,
    )


def attach_redis(app: web.Application, client: aioredis.Redis) -> None:
    """Store `client` in the app and close it when the app shuts down."""
    app[REDIS] = client

    async def close_at_cleanup(app: web.Application) -> AsyncIterator[None]:
        yield
        await client.aclose()

    app.cleanup_ctx.append(close_at_cleanup)
