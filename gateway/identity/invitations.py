"""Invitations to an organization (table `identity.invitations`, migration 150).

Adding a person is an invitation they accept: nobody becomes a member of an organization, nor
shows in its audit trail, without saying yes. An owner or admin invites an email with a role and
gets a link to hand over (`/invitations/<token>`, valid INVITATION_DAYS); the person accepts it
in the dashboard (the link, or the list on `/orgs` once signed in with that email), or, without
an account yet, opens the link and chooses a name and password, which accepts it. Only the
token's SHA-256 is kept. Inviting an email again replaces its pending invitation (a new link).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from libs.common.db import Row, fetch_all, fetch_one, fetch_returned
from libs.contract.validators import is_uuid

INVITATION_DAYS = 7
_COLUMNS = (
    "i.id, i.organization_id, i.email, i.role, i.created_at, i.expires_at, o.slug AS organization_slug,"
    " o.name AS organization_name, u.email AS invited_by_email"
)
_FROM = "invitations i JOIN organizations o ON o.id = i.organization_id LEFT JOIN users u ON u.id = i.invited_by"


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


async def invite(cur: Any, organization_id: str, email: str, role: str, invited_by: str, now: datetime) -> str:
    """A new pending invitation (withdrawing one the email had); returns the link's token."""
    await cur.execute(
        "UPDATE invitations SET answered_at = %s, answer = 'withdrawn'"
        " WHERE organization_id = %s AND email = %s AND answered_at IS NULL",
        (now, organization_id, email),
    )
    token = secrets.token_urlsafe(32)
    await fetch_returned(
        cur,
        "INSERT INTO invitations (organization_id, email, role, token_hash, invited_by, created_at, expires_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (organization_id, email, role, token_hash(token), invited_by, now, now + timedelta(days=INVITATION_DAYS)),
    )
    return token


async def pending_by_token(cur: Any, token: str, now: datetime) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE i.token_hash = %s AND i.answered_at IS NULL AND i.expires_at > %s",
        (token_hash(token), now),
    )


async def lock_pending(cur: Any, invitation_id: str, email: str, now: datetime) -> Row | None:
    """The pending invitation `invitation_id` for `email`, locked for the caller's transaction."""
    if not is_uuid(invitation_id):
        return None
    return await fetch_one(
        cur,
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE i.id = %s AND i.email = lower(%s)"
        " AND i.answered_at IS NULL AND i.expires_at > %s FOR UPDATE OF i",
        (invitation_id, email, now),
    )


async def pending_for_email(cur: Any, email: str, now: datetime) -> list[Row]:
    return await fetch_all(
        cur,
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE i.email = lower(%s) AND i.answered_at IS NULL AND i.expires_at > %s"
        " ORDER BY i.created_at DESC",
        (email, now),
    )


async def pending_of_organization(cur: Any, organization_id: str, now: datetime) -> list[Row]:
    return await fetch_all(
        cur,
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE i.organization_id = %s AND i.answered_at IS NULL AND i.expires_at > %s"
        " ORDER BY i.created_at DESC",
        (organization_id, now),
    )


async def answer(cur: Any, invitation_id: str, answer: str, now: datetime) -> None:
    await cur.execute(
        "UPDATE invitations SET answered_at = %s, answer = %s WHERE id = %s AND answered_at IS NULL",
        (now, answer, invitation_id),
    )


async def withdraw(cur: Any, organization_id: str, invitation_id: str, now: datetime) -> bool:
    if not is_uuid(invitation_id):
        return False
    await cur.execute(
        "UPDATE invitations SET answered_at = %s, answer = 'withdrawn'"
        " WHERE id = %s AND organization_id = %s AND answered_at IS NULL",
        (now, invitation_id, organization_id),
    )
    return bool(cur.rowcount)
