"""Dashboard sessions, stored in Redis in aiohttp-session's format under the cookie's name.

A session holds a user and the organization they act in, never scopes. The dashboard's login
will open sessions through aiohttp-session itself; `open_session` writes the same record for
operators (`python -m gateway.admin create-session`) and tests.
"""

from __future__ import annotations

import json
import time
import uuid

import redis.asyncio as aioredis

from gateway.auth.credentials import SESSION_COOKIE


async def open_session(redis: aioredis.Redis, user_id: str, organization_id: str, max_age: int) -> str:
    """Store a session for the user in the organization; returns the cookie value."""
    key = uuid.uuid4().hex
    record = {"created": int(time.time()), "session": {"user_id": user_id, "organization_id": organization_id}}
    await redis.set(f"{SESSION_COOKIE}_{key}", json.dumps(record), ex=max_age)
    return key
