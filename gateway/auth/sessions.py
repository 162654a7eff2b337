"""Dashboard sessions, stored in Redis in aiohttp-session's format under the cookie's name.

A session holds a user and the organization they act in, never scopes. The dashboard's sign-in
opens sessions through aiohttp-session itself; `open_session` writes the same record for
operators (`python -m gateway.admin create-session`) and tests.
"""

from __future__ import annotations

import json
import time
import uuid

import redis.asyncio as aioredis

from gateway.auth.credentials import SESSION_COOKIE


def session_record_key(cookie_value: str) -> str:
    """Where aiohttp-session's Redis storage keeps the session a cookie names."""
    return f"{SESSION_COOKIE}_{cookie_value}"


async def open_session(redis: aioredis.Redis, user_id: str, organization_id: str, max_age: int) -> str:
    """Store a session for the user in the organization; returns the cookie value."""
    key = uuid.uuid4().hex
    record = {"created": int(time.time()), "session": {"user_id": user_id, "organization_id": organization_id}}
    await redis.set(session_record_key(key), json.dumps(record), ex=max_age)
    return key


async def close_session(redis: aioredis.Redis, cookie_value: str) -> None:
    """Delete a session: its cookie no longer opens anything, on any replica."""
    await redis.delete(session_record_key(cookie_value))
