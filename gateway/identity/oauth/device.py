"""The device authorization grant (RFC 8628): codes, polling, and the user's decision.

The user code is eight characters of twenty consonants (RFC 8628 §6.1): no vowels, so no word
can be spelled, and none of 0/O, 1/I/L or 5/S to mistake. 20^8 ≈ 2.6e10 codes, of which a signed
-in person could try only a handful in the fifteen minutes one lives. People may type it in
either case, with or without the hyphen and spaces.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import aiopg
import psycopg2.errors

from gateway.identity.auth.api_keys import hash_key
from gateway.identity.auth.tokens import TokenSigner
from gateway.identity.oauth import grants, queries
from gateway.identity.oauth.protocol import OAuthError, invalid_grant
from libs.common.db import Row, cursor, savepoint

USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
# How often each worker deletes expired authorizations (a DELETE any number may run at once).
EXPIRY_SWEEP_SECONDS = 60.0
USER_CODE_LENGTH = 8
EXPIRES_IN_SECONDS = 900


def new_user_code() -> str:
    return "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))


def show_user_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def normalize_user_code(text: str) -> str | None:
    """The stored form of a code as a person typed it; None when it cannot be one."""
    code = "".join(character for character in text.upper() if character not in "- ")
    if len(code) != USER_CODE_LENGTH or any(character not in USER_CODE_ALPHABET for character in code):
        return None
    return code


async def delete_expired(pool: aiopg.Pool, clock: Callable[[], datetime]) -> None:
    async with cursor(pool) as cur:
        await queries.delete_expired_device_authorizations(cur, clock())


async def start(
    cur: Any,
    client_id: str,
    scopes: frozenset[str],
    now: datetime,
    interval: int,
    device_name: str | None = None,
) -> tuple[str, Row]:
    """A new pending authorization, polled at most every `interval` seconds; returns the device
    code (shown once) and the stored row."""
    for _ in range(5):
        device_code = secrets.token_urlsafe(32)
        try:
            async with savepoint(cur):
                row = await queries.insert_device_authorization(
                    cur,
                    hash_key(device_code),
                    new_user_code(),
                    client_id,
                    sorted(scopes),
                    interval,
                    now,
                    now + timedelta(seconds=EXPIRES_IN_SECONDS),
                    device_name,
                )
            return device_code, row
        except psycopg2.errors.UniqueViolation:
            continue  # a user code in use: draw another
    raise RuntimeError("no free user code after five draws")


async def poll(
    cur: Any, signer: TokenSigner, client_id: str, device_code: str, now: datetime
) -> grants.Tokens | OAuthError:
    """One poll of the token endpoint. Every answer but an unknown code records the poll, so
    the interval is enforced here, whatever the client does: a poll sooner than the interval
    after the previous one is slow_down, and the interval grows by five seconds."""
    row = await queries.lock_device_authorization(cur, hash_key(device_code))
    if row is None or row["client_id"] != client_id:
        return invalid_grant("unknown device code")
    if row["status"] == "redeemed":
        return invalid_grant("the device code has already been used")
    if row["expires_at"] <= now:
        return OAuthError("expired_token", "the device code has expired; start again")
    too_soon = now - row["last_polled_at"] < timedelta(seconds=row["poll_interval"])
    await queries.record_poll(cur, str(row["id"]), now, too_soon)
    if too_soon:
        return OAuthError("slow_down", f"poll at most every {row['poll_interval'] + 5} seconds")
    if row["status"] == "pending":
        return OAuthError("authorization_pending", "the user has not decided yet")
    if row["status"] == "denied":
        return OAuthError("access_denied", "the user denied the request")
    await queries.mark_redeemed(cur, str(row["id"]))
    member = await queries.find_member(cur, str(row["user_id"]), str(row["organization_id"]))
    if member is None:
        return OAuthError("access_denied", "the approving user is no longer a member of the organization")
    scopes = frozenset(row["granted_scopes"]) & grants.GRANTABLE_SCOPES[member["role"]]
    return await grants.start(cur, signer, client_id, member, scopes, now, row["device_name"])


async def pending(cur: Any, user_code: str, now: datetime, lock: bool = False) -> Row | None:
    """The authorization a person may still decide on, by its user code."""
    row = await queries.find_device_authorization(cur, user_code, lock)
    if row is None or row["status"] != "pending" or row["expires_at"] <= now:
        return None
    return row


async def decide(
    cur: Any, user_code: str, user_id: str, organization_id: str, role: str, approve: bool, now: datetime
) -> Row | None:
    """The signed-in user approves (for one of their organizations) or denies. Approval grants
    the requested scopes the user's role may grant. None when the code is not pending."""
    row = await pending(cur, user_code, now, lock=True)
    if row is None:
        return None
    decision: tuple[str, str, str | None, list[str] | None] = ("denied", user_id, None, None)
    if approve:
        granted = sorted(frozenset(row["requested_scopes"]) & grants.GRANTABLE_SCOPES[role])
        decision = ("approved", user_id, organization_id, granted)
    await queries.decide_device_authorization(cur, str(row["id"]), *decision, now)
    return row
