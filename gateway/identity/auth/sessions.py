"""Dashboard sessions, stored in Redis in aiohttp-session's format under the cookie's name.

A session holds a user and the organization they act in, never scopes, and when it was opened
(`opened_at`): a password change refuses every session opened before it, on every replica,
without having to find them in Redis. The dashboard's sign-in opens sessions through
aiohttp-session itself; `open_session` writes the same record for operators
(`python -m gateway.admin create-session`) and tests.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from aiohttp import web

SESSION_COOKIE = "app-auth.session_token"
OPENED_AT = "opened_at"


def opened_at(session: Mapping[str, Any]) -> float:
    """When the session was opened (Unix time); 0 for one that does not say."""
    value = session.get(OPENED_AT)
    return float(value) if isinstance(value, int | float) else 0.0


def session_record_key(cookie_value: str) -> str:
    """Where aiohttp-session's Redis storage keeps the session a cookie names."""
    return f"{SESSION_COOKIE}_{cookie_value}"


async def open_session(redis: aioredis.Redis, user_id: str, organization_id: str, max_age: int) -> str:
    """Store a session for the user in the organization; returns the cookie value."""
    key = uuid.uuid4().hex
    session = {"user_id": user_id, "organization_id": organization_id, OPENED_AT: time.time()}
    record = {"created": int(time.time()), "session": session}
    await redis.set(session_record_key(key), json.dumps(record), ex=max_age)
    return key


async def close_session(redis: aioredis.Redis, cookie_value: str) -> None:
    """Delete a session: its cookie no longer opens anything, on any replica."""
    await redis.delete(session_record_key(cookie_value))


def from_another_site(request: web.Request) -> bool:
    """Whether a browser says the request was made by another site's page: its `Origin` names
    another host (or is `null`, an opaque origin such as a sandboxed frame), or its
    `Sec-Fetch-Site` says cross-site. Without either header it was not made by a page. The
    session's cookie goes with any site's request, so what it authenticates asks this."""
    origin = request.headers.get("Origin")
    if origin is not None and (origin == "null" or urlsplit(origin).netloc != request.host):
        return True
    return request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none")
