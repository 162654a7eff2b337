"""Data access for API keys and their history, in the identity schema. Plain async functions, cursor first."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from gateway.shapes import API_KEY
from libs.common.db import Row, fetch_all, fetch_one, fetch_returned, fetch_value, json_or_null
from libs.common.errors import NotFound
from libs.contract.validators import is_uuid


async def insert_api_key(
    cur: Any,
    organization_id: str,
    name: str,
    prefix: str,
    key_hash: str,
    scopes: list[str],
    expires_at: datetime | None,
) -> Row:
    row = await fetch_returned(
        cur,
        "INSERT INTO api_keys (organization_id, name, prefix, key_hash, scopes, expires_at)"
        f" VALUES (%s, %s, %s, %s, %s, %s) RETURNING {API_KEY.columns}",
        (organization_id, name, prefix, key_hash, scopes, expires_at),
    )
    return row


async def find_active_key_by_hash(cur: Any, key_hash: str) -> Row | None:
    """The key with this hash, unless it is revoked. Expiry, and a revocation scheduled for later
    (`revoked_at` in the future), are checked by the caller, per request."""
    return await fetch_one(
        cur,
        "SELECT id, organization_id, scopes, expires_at, revoked_at FROM api_keys"
        " WHERE key_hash = %s AND (revoked_at IS NULL OR revoked_at > clock_timestamp())",
        (key_hash,),
    )


async def revoke_api_key(cur: Any, id_or_prefix: str) -> Row:
    """Revoke a key by id or prefix. clock_timestamp(), not now(): pollers compare against commit time."""
    column = "prefix" if id_or_prefix.startswith("avk_") else "id"
    row = await fetch_one(
        cur,
        f"UPDATE api_keys SET revoked_at = LEAST(revoked_at, clock_timestamp()) WHERE {column} = %s"
        f" RETURNING {API_KEY.columns}",
        (id_or_prefix,),
    )
    if row is None:
        raise NotFound(f"no api key {id_or_prefix!r}")
    return row


async def find_organization_key(cur: Any, organization_id: str, key_id: str, lock: bool = False) -> Row | None:
    if not is_uuid(key_id):
        return None
    return await fetch_one(
        cur,
        f"SELECT {API_KEY.columns} FROM api_keys WHERE id = %s AND organization_id = %s{' FOR UPDATE' if lock else ''}",
        (key_id, organization_id),
    )


async def revoke_organization_key(cur: Any, organization_id: str, key_id: str, after: timedelta) -> Row:
    """Revoke a key `after` from now (zero: at once); an earlier revocation already set stands."""
    row = await fetch_one(
        cur,
        "UPDATE api_keys SET revoked_at = LEAST(revoked_at, clock_timestamp() + %s)"
        f" WHERE id = %s AND organization_id = %s RETURNING {API_KEY.columns}",
        (after, key_id, organization_id),
    )
    if row is None:
        raise NotFound("no such api key")
    return row


async def insert_key_event(
    cur: Any, key: Row, actor_user_id: str | None, actor: str, action: str, details: dict[str, Any]
) -> None:
    await cur.execute(
        "INSERT INTO api_key_events (api_key_id, organization_id, actor_user_id, actor, action, details)"
        " VALUES (%s, %s, %s, %s, %s, %s)",
        (key["id"], key["organization_id"], actor_user_id, actor, action, json_or_null(details)),
    )


async def list_key_events(cur: Any, key_id: str) -> list[Row]:
    return await fetch_all(
        cur,
        "SELECT actor, action, details, at FROM api_key_events WHERE api_key_id = %s ORDER BY at, id",
        (key_id,),
    )


async def list_api_keys(cur: Any, organization_id: str) -> list[Row]:
    return await fetch_all(
        cur,
        f"SELECT {API_KEY.columns} FROM api_keys WHERE organization_id = %s ORDER BY created_at",
        (organization_id,),
    )


async def revoked_key_hashes_since(cur: Any, since: datetime | None) -> tuple[list[str], datetime]:
    """Hashes of keys whose revocation fell between `since` (a minute ago when None) and the
    database time now; and that time."""
    now = await fetch_value(cur, "SELECT clock_timestamp()")
    # A revocation scheduled for later is not due before its time; it is picked up by the poll
    # whose window contains it.
    rows = await fetch_all(
        cur,
        "SELECT key_hash FROM api_keys WHERE revoked_at >= COALESCE(%s, %s - interval '1 minute') AND revoked_at <= %s",
        (since, now, now),
    )
    return [row["key_hash"] for row in rows], now


async def touch_api_keys(cur: Any, key_ids: list[str]) -> None:
    await cur.execute("UPDATE api_keys SET last_used_at = now() WHERE id = ANY(%s::uuid[])", (key_ids,))
