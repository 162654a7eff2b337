"""Typed application state shared by every part, declared once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    import aiopg
    import redis.asyncio as redis

    from libs.common.http_client import InternalClient
    from libs.common.internal_token import Caller

DB_POOL: web.AppKey[aiopg.Pool] = web.AppKey("db_pool")
REDIS: web.AppKey[redis.Redis] = web.AppKey("redis")
HTTP: web.AppKey[InternalClient] = web.AppKey("http")
SETTINGS: web.AppKey[Any] = web.AppKey("settings")

CALLER: web.RequestKey[Caller] = web.RequestKey("caller")
REQUEST_ID: web.RequestKey[str] = web.RequestKey("request_id", str)
# Who made the request, for its access-log line: organization id, credential kind, key prefix.
# Never a secret: a key's prefix is its public, displayed part.
ACCESS_FIELDS: web.RequestKey[dict[str, str]] = web.RequestKey("access_fields", dict)


def caller_of(request: web.Request) -> Caller:
    """The verified caller of a request (set by the internal-auth middleware)."""
    return request[CALLER]
