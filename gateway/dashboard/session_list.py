"""A user's dashboard sessions, listed and revocable from /{orgSlug}/settings/security.

aiohttp-session keeps each session under its cookie value, with no index by user. The first page
a session opens after sign-in records it in a Redis hash per user (`<prefix>dashboard-sessions:
<user id>`), under a public id (a hash of the cookie value, so no page ever shows a cookie). The
list drops entries whose session has ended (signed out, expired, revoked); revoking one deletes
its record, so its cookie opens nothing from the next request on, on every replica.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from aiohttp import web
from aiohttp_session import Session

from gateway.identity.auth.sessions import close_session, opened_at, session_record_key
from gateway.settings import GatewaySettings
from libs.common.client_address import client_address
from libs.common.encoding import dumps, loads
from libs.common.state import REDIS, SETTINGS

LISTED = "listed"
MAX_AGENT_LENGTH = 200


@dataclass(frozen=True)
class ListedSession:
    id: str
    opened_at: datetime
    agent: str
    address: str
    current: bool


def public_id(cookie_value: str) -> str:
    return hashlib.sha256(cookie_value.encode()).hexdigest()[:24]


def _index(request: web.Request, user_id: str) -> str:
    settings: GatewaySettings = request.config_dict[SETTINGS]
    return f"{settings.redis_prefix}dashboard-sessions:{user_id}"


async def remember(request: web.Request, session: Session, user_id: str) -> None:
    """Record the session in its user's list, once (the session then says it is listed)."""
    if session.identity is None or session.get(LISTED):
        return
    entry = {
        "sid": str(session.identity),
        "opened": opened_at(session) or time.time(),
        "agent": request.headers.get("User-Agent", "")[:MAX_AGENT_LENGTH],
        "address": client_address(request),
    }
    redis = request.config_dict[REDIS]
    key = _index(request, user_id)
    await redis.hset(key, public_id(str(session.identity)), dumps(entry))
    await redis.expire(key, request.config_dict[SETTINGS].session_max_age)
    session[LISTED] = True


async def listed(request: web.Request, user_id: str, current: Session) -> list[ListedSession]:
    """The user's live sessions, newest first; ended ones are dropped from the list."""
    redis = request.config_dict[REDIS]
    key = _index(request, user_id)
    raw = await redis.hgetall(key)
    entries = {(name.decode() if isinstance(name, bytes) else name): loads(value) for name, value in raw.items()}
    found = []
    ended = []
    for name, entry in entries.items():
        if not await redis.exists(session_record_key(entry["sid"])):
            ended.append(name)
            continue
        found.append(
            ListedSession(
                id=name,
                opened_at=datetime.fromtimestamp(float(entry["opened"]), UTC),
                agent=str(entry.get("agent") or "Unknown browser"),
                address=str(entry.get("address") or ""),
                current=current.identity is not None and entry["sid"] == str(current.identity),
            )
        )
    if ended:
        await redis.hdel(key, *ended)
    return sorted(found, key=lambda item: item.opened_at, reverse=True)


async def revoke(request: web.Request, user_id: str, session_id: str) -> bool:
    """End one of the user's sessions; False when it is not (or no longer) theirs."""
    redis = request.config_dict[REDIS]
    key = _index(request, user_id)
    value = await redis.hget(key, session_id)
    if value is None:
        return False
    await close_session(redis, str(loads(value)["sid"]))
    await redis.hdel(key, session_id)
    return True


async def forget(request: web.Request, user_id: str, session: Session) -> None:
    """Drop a session that is signing out from its user's list."""
    if session.identity is not None:
        await request.config_dict[REDIS].hdel(_index(request, user_id), public_id(str(session.identity)))
