"""Data access for device authorizations, grants and refresh tokens. Cursor first; times are
passed in from the gateway's clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from libs.common.db import Row, fetch_one, fetch_returned

DEVICE_COLUMNS = (
    "id, user_code, client_id, requested_scopes, status, poll_interval, created_at, expires_at, last_polled_at,"
    " user_id, organization_id, granted_scopes, device_name"
)
# Expired authorizations are kept this long, so a late poll still reads expired_token, not an
# unknown code: a client polls every few seconds, so a pending one is soon told; a decided one
# is kept a day for the record.
PENDING_RETENTION = timedelta(minutes=10)
DECIDED_RETENTION = timedelta(days=1)


async def insert_device_authorization(
    cur: Any,
    device_code_hash: str,
    user_code: str,
    client_id: str,
    scopes: list[str],
    interval: int,
    now: datetime,
    expires_at: datetime,
    device_name: str | None,
) -> Row:
    return await fetch_returned(
        cur,
        "INSERT INTO device_authorizations (device_code_hash, user_code, client_id, requested_scopes, poll_interval,"
        " created_at, expires_at, last_polled_at, device_name) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        f" RETURNING {DEVICE_COLUMNS}",
        (device_code_hash, user_code, client_id, scopes, interval, now, expires_at, now, device_name),
    )


async def delete_expired_device_authorizations(cur: Any, now: datetime) -> None:
    await cur.execute(
        "DELETE FROM device_authorizations WHERE expires_at < CASE status WHEN 'pending' THEN %s ELSE %s END",
        (now - PENDING_RETENTION, now - DECIDED_RETENTION),
    )


async def lock_device_authorization(cur: Any, device_code_hash: str) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {DEVICE_COLUMNS} FROM device_authorizations WHERE device_code_hash = %s FOR UPDATE",
        (device_code_hash,),
    )


async def find_device_authorization(cur: Any, user_code: str, lock: bool = False) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {DEVICE_COLUMNS} FROM device_authorizations WHERE user_code = %s" + (" FOR UPDATE" if lock else ""),
        (user_code,),
    )


async def record_poll(cur: Any, authorization_id: str, now: datetime, slow_down: bool) -> None:
    """A poll: its time, and (when it came too early) an interval five seconds longer (RFC 8628 §3.5)."""
    await cur.execute(
        "UPDATE device_authorizations SET last_polled_at = %s,"
        " poll_interval = poll_interval + CASE WHEN %s THEN 5 ELSE 0 END WHERE id = %s",
        (now, slow_down, authorization_id),
    )


async def decide_device_authorization(
    cur: Any,
    authorization_id: str,
    status: str,
    user_id: str,
    organization_id: str | None,
    granted_scopes: list[str] | None,
    now: datetime,
) -> None:
    await cur.execute(
        "UPDATE device_authorizations SET status = %s, user_id = %s, organization_id = %s, granted_scopes = %s,"
        " decided_at = %s WHERE id = %s AND status = 'pending'",
        (status, user_id, organization_id, granted_scopes, now, authorization_id),
    )


async def mark_redeemed(cur: Any, authorization_id: str) -> None:
    await cur.execute("UPDATE device_authorizations SET status = 'redeemed' WHERE id = %s", (authorization_id,))


async def insert_grant(
    cur: Any,
    client_id: str,
    user_id: str,
    organization_id: str,
    scopes: list[str],
    now: datetime,
    device_name: str | None = None,
) -> str:
    row = await fetch_returned(
        cur,
        "INSERT INTO oauth_grants (client_id, user_id, organization_id, scopes, created_at, device_name)"
        " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
        (client_id, user_id, organization_id, scopes, now, device_name),
    )
    return str(row["id"])


async def insert_refresh_token(cur: Any, grant_id: str, token_hash: str, now: datetime, expires_at: datetime) -> None:
    await cur.execute(
        "INSERT INTO refresh_tokens (grant_id, token_hash, created_at, expires_at) VALUES (%s, %s, %s, %s)",
        (grant_id, token_hash, now, expires_at),
    )


async def lock_refresh_token(cur: Any, token_hash: str) -> Row | None:
    """The refresh token and its grant, both locked: concurrent refreshes of one token queue here."""
    return await fetch_one(
        cur,
        "SELECT t.id, t.grant_id, t.expires_at, t.used_at, g.client_id, g.user_id, g.organization_id, g.scopes,"
        " g.revoked_at FROM refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id"
        " WHERE t.token_hash = %s FOR UPDATE OF t, g",
        (token_hash,),
    )


async def mark_refresh_token_used(cur: Any, token_id: str, now: datetime) -> None:
    await cur.execute("UPDATE refresh_tokens SET used_at = %s WHERE id = %s", (now, token_id))


async def narrow_grant(cur: Any, grant_id: str, scopes: list[str]) -> None:
    await cur.execute("UPDATE oauth_grants SET scopes = %s WHERE id = %s", (scopes, grant_id))


async def find_grant(cur: Any, grant_id: str) -> Row | None:
    return await fetch_one(cur, "SELECT id, client_id FROM oauth_grants WHERE id = %s", (grant_id,))


async def revoke_grant(cur: Any, grant_id: str, reason: str, now: datetime) -> Row | None:
    """End a live grant; returns whose it was (None when it had already ended)."""
    return await fetch_one(
        cur,
        "UPDATE oauth_grants SET revoked_at = %s, revoked_reason = %s WHERE id = %s AND revoked_at IS NULL"
        " RETURNING id, user_id, organization_id, device_name",
        (now, reason, grant_id),
    )


async def find_member(cur: Any, user_id: str, organization_id: str) -> Row | None:
    """The user, the organization and the user's role in it; None when not a member. Read from the
    database, not the gateway's cache, so a removal counts at once."""
    return await fetch_one(
        cur,
        "SELECT u.id AS user_id, u.email, u.name AS user_name, o.id AS organization_id, o.slug, o.name, m.role"
        " FROM memberships m JOIN users u ON u.id = m.user_id JOIN organizations o ON o.id = m.organization_id"
        " WHERE m.user_id = %s AND m.organization_id = %s",
        (user_id, organization_id),
    )
