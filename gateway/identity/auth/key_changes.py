"""Changes to API keys with their history: who created, revoked or rotated which key, and when.

The dashboard and the operator's command line both go through here, so every change leaves an
`api_key_events` row and its `api_key.*` webhook event in the same transaction as the change itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from gateway.identity.auth import key_queries
from gateway.identity.auth.api_keys import create_api_key
from gateway.shapes import API_KEY_CHANGE
from libs.common import webhook_outbox
from libs.common.db import Row
from libs.common.errors import Conflict, NotFound, ValidationFailed

# The contract's rotation: deploy the new key, confirm it works, then the old one goes. Both
# work for at most this long.
MAX_GRACE_PERIOD = timedelta(days=7)


@dataclass(frozen=True)
class Actor:
    """Who makes a change: a dashboard user, or the operator (user_id None)."""

    user_id: str | None
    label: str


OPERATOR = Actor(None, "operator (command line)")


async def record(cur: Any, key: Row, actor: Actor, action: str, details: dict[str, Any] | None = None) -> None:
    """The change in the key's history, and its `api_key.<action>` event (the key, never its hash)."""
    await key_queries.insert_key_event(cur, key, actor.user_id, actor.label, action, details or {})
    data = API_KEY_CHANGE.of({**key, "actor": actor.label, "details": details or {}})
    await webhook_outbox.record(cur, f"api_key.{action}", str(key["organization_id"]), f"api_key:{key['id']}", data)


async def create_key(
    cur: Any,
    organization_id: str,
    actor: Actor,
    name: str,
    scopes: frozenset[str],
    expires_at: datetime | None,
    details: dict[str, Any] | None = None,
) -> tuple[str, Row]:
    """A new key (its secret, shown once, and its row), recorded as created."""
    secret, row = await create_api_key(cur, organization_id, name, scopes, expires_at)
    await record(cur, row, actor, "created", {"scopes": sorted(scopes), "expiresAt": expires_at, **(details or {})})
    return secret, row


async def usable_key(cur: Any, organization_id: str, key_id: str, now: datetime) -> Row:
    """A key of the organization that still works (locked until the transaction ends)."""
    key = await key_queries.find_organization_key(cur, organization_id, key_id, lock=True)
    if key is None:
        raise NotFound("There is no such API key in this organization.")
    if key["revoked_at"] is not None and key["revoked_at"] <= now:
        raise Conflict("This key is already revoked.")
    if key["expires_at"] is not None and key["expires_at"] <= now:
        raise Conflict("This key has expired.")
    return key


async def revoke_key(cur: Any, organization_id: str, key_id: str, actor: Actor, now: datetime) -> Row:
    """Revoke a working key at once."""
    await usable_key(cur, organization_id, key_id, now)
    row = await key_queries.revoke_organization_key(cur, organization_id, key_id, timedelta(0))
    await record(cur, row, actor, "revoked")
    return row


@dataclass(frozen=True)
class Rotation:
    secret: str
    new: Row
    old: Row


async def rotate_key(
    cur: Any,
    organization_id: str,
    key_id: str,
    actor: Actor,
    name: str,
    scopes: frozenset[str],
    expires_at: datetime | None,
    grace: timedelta,
    now: datetime,
) -> Rotation:
    """A new key with the same or narrower scopes; the old one revoked after `grace` (zero: at once)."""
    old = await usable_key(cur, organization_id, key_id, now)
    wider = scopes - set(old["scopes"])
    if wider:
        raise ValidationFailed(f"A rotated key cannot have scopes its old key lacks: {', '.join(sorted(wider))}.")
    if not timedelta(0) <= grace <= MAX_GRACE_PERIOD:
        raise ValidationFailed("The grace period is at most 7 days.")
    secret, new = await create_key(cur, organization_id, actor, name, scopes, expires_at, {"replaces": old["prefix"]})
    old = await key_queries.revoke_organization_key(cur, organization_id, key_id, grace)
    await record(cur, old, actor, "rotated", {"replacedBy": new["prefix"], "stopsAt": old["revoked_at"]})
    return Rotation(secret, new, old)
