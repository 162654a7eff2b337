"""Data access for organizations, users, memberships and their changes, in the identity schema. Plain
async functions, cursor first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_one, fetch_returned, fetch_value
from libs.common.errors import NotFound
from libs.contract.validators import is_uuid


async def create_organization(cur: Any, slug: str, name: str, organization_id: str | None = None) -> Row:
    with conflict_on_unique(f"organization {slug!r} already exists"):
        row = await fetch_returned(
            cur,
            "INSERT INTO organizations (id, slug, name) VALUES (COALESCE(%s, gen_random_uuid()), %s, %s)"
            " RETURNING id, slug, name, created_at",
            (organization_id, slug, name),
        )
    return row


async def find_organization(cur: Any, id_or_slug: str) -> Row | None:
    column = "id" if is_uuid(id_or_slug) else "slug"
    return await fetch_one(cur, f"SELECT id, slug, name FROM organizations WHERE {column} = %s", (id_or_slug,))


async def get_organization(cur: Any, id_or_slug: str) -> Row:
    row = await find_organization(cur, id_or_slug)
    if row is None:
        raise NotFound(f"no organization {id_or_slug!r}")
    return row


async def list_organizations(cur: Any) -> list[Row]:
    return await fetch_all(cur, "SELECT id, slug, name, created_at FROM organizations ORDER BY slug")


async def create_user(cur: Any, email: str, name: str, user_id: str | None = None) -> Row:
    with conflict_on_unique(f"user {email!r} already exists"):
        row = await fetch_returned(
            cur,
            "INSERT INTO users (id, email, name) VALUES (COALESCE(%s, gen_random_uuid()), lower(%s), %s)"
            " RETURNING id, email, name, created_at",
            (user_id, email, name),
        )
    return row


async def get_user(cur: Any, id_or_email: str) -> Row:
    condition = "email = lower(%s)" if "@" in id_or_email else "id = %s"
    row = await fetch_one(cur, f"SELECT id, email, name FROM users WHERE {condition}", (id_or_email,))
    if row is None:
        raise NotFound(f"no user {id_or_email!r}")
    return row


async def find_user_by_id(cur: Any, user_id: str) -> Row | None:
    if not is_uuid(user_id):
        return None
    return await fetch_one(cur, "SELECT id, email, name, credentials_revoked_at FROM users WHERE id = %s", (user_id,))


async def find_user_for_sign_in(cur: Any, email: str) -> Row | None:
    return await fetch_one(cur, "SELECT id, email, name, password_hash FROM users WHERE email = lower(%s)", (email,))


async def set_name_and_password(cur: Any, user_id: str, name: str, password_hash: str) -> None:
    """A person opening the account they were invited with: their name and first password."""
    await cur.execute(
        "UPDATE users SET name = %s, password_hash = %s, updated_at = now() WHERE id = %s",
        (name, password_hash, user_id),
    )


async def set_password_hash(cur: Any, user_id: str, password_hash: str) -> None:
    await cur.execute("UPDATE users SET password_hash = %s, updated_at = now() WHERE id = %s", (password_hash, user_id))


async def change_password(cur: Any, user_id: str, password_hash: str) -> None:
    """A new password ends everything the old one opened: every session and access token issued
    until now (credentials_revoked_at), and every refresh-token family of the user."""
    await cur.execute(
        "UPDATE users SET password_hash = %s, credentials_revoked_at = clock_timestamp(), updated_at = now()"
        " WHERE id = %s",
        (password_hash, user_id),
    )
    await cur.execute(
        "UPDATE oauth_grants SET revoked_at = clock_timestamp(), revoked_reason = 'password'"
        " WHERE user_id = %s AND revoked_at IS NULL",
        (user_id,),
    )


async def find_credentials_revoked_at(cur: Any, user_id: str) -> datetime | None:
    value: datetime | None = await fetch_value(
        cur, "SELECT credentials_revoked_at FROM users WHERE id = %s", (user_id,)
    )
    return value


async def is_grant_revoked(cur: Any, grant_id: str) -> bool:
    """Whether the grant is revoked; an unknown grant (deleted with its user) counts as revoked."""
    revoked: bool | None = await fetch_value(
        cur, "SELECT revoked_at IS NOT NULL FROM oauth_grants WHERE id = %s", (grant_id,)
    )
    return revoked is not False


async def list_memberships(cur: Any, user_id: str) -> list[Row]:
    """The organizations the user belongs to, with the role in each, by name."""
    return await fetch_all(
        cur,
        "SELECT o.id, o.slug, o.name, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id"
        " WHERE m.user_id = %s ORDER BY o.name, o.slug",
        (user_id,),
    )


async def list_users(cur: Any, organization_id: str | None = None) -> list[Row]:
    """Every user, or an organization's members with their role."""
    if organization_id is None:
        return await fetch_all(cur, "SELECT id, email, name, created_at FROM users ORDER BY email")
    return await fetch_all(
        cur,
        "SELECT u.id, u.email, u.name, m.role, m.created_at AS member_since FROM memberships m"
        " JOIN users u ON u.id = m.user_id WHERE m.organization_id = %s ORDER BY u.email",
        (organization_id,),
    )


async def upsert_membership(cur: Any, user_id: str, organization_id: str, role: str) -> Row:
    row = await fetch_returned(
        cur,
        "INSERT INTO memberships (user_id, organization_id, role) VALUES (%s, %s, %s)"
        " ON CONFLICT (user_id, organization_id) DO UPDATE SET role = EXCLUDED.role"
        " RETURNING user_id, organization_id, role",
        (user_id, organization_id, role),
    )
    return row


async def find_membership_role(cur: Any, user_id: str, organization_id: str) -> str | None:
    role: str | None = await fetch_value(
        cur, "SELECT role FROM memberships WHERE user_id = %s AND organization_id = %s", (user_id, organization_id)
    )
    return role


async def identity_changes_since(cur: Any, since: datetime | None) -> tuple[list[Row], datetime]:
    """Changes of organizations, products and memberships at or after `since` (all of the last
    minute when None), and the database time now."""
    now = await fetch_value(cur, "SELECT clock_timestamp()")
    rows = await fetch_all(
        cur,
        "SELECT kind, key FROM identity_changes"
        " WHERE changed_at >= COALESCE(%s, clock_timestamp() - interval '1 minute')",
        (since,),
    )
    return rows, now


async def prune_identity_changes(cur: Any) -> None:
    """Forget changes every replica has long read."""
    await cur.execute("DELETE FROM identity_changes WHERE changed_at < clock_timestamp() - interval '1 hour'")


async def remember_organization(cur: Any, user_id: str, organization_id: str) -> None:
    """The organization the user acts in, for the next sign-in to land there."""
    await cur.execute(
        "UPDATE users SET last_organization_id = %s WHERE id = %s AND last_organization_id IS DISTINCT FROM %s",
        (organization_id, user_id, organization_id),
    )


async def last_organization(cur: Any, user_id: str) -> str | None:
    value = await fetch_value(cur, "SELECT last_organization_id::text FROM users WHERE id = %s", (user_id,))
    return value if isinstance(value, str) else None


async def remove_membership(cur: Any, user_id: str, organization_id: str) -> bool:
    await cur.execute("DELETE FROM memberships WHERE user_id = %s AND organization_id = %s", (user_id, organization_id))
    return bool(cur.rowcount)


async def lock_memberships(cur: Any, organization_id: str) -> None:
    """Serialise the caller's transaction with every other change of the organization's members
    (the organization's row lock), so two demotions cannot each see the other's owner and both
    leave: the last-owner rule is checked and written under this lock."""
    await cur.execute("SELECT 1 FROM organizations WHERE id = %s FOR UPDATE", (organization_id,))


async def count_owners(cur: Any, organization_id: str) -> int:
    count: int = await fetch_value(
        cur, "SELECT count(*) FROM memberships WHERE organization_id = %s AND role = 'owner'", (organization_id,)
    )
    return count


async def list_user_grants(cur: Any, user_id: str) -> list[Row]:
    """The user's authorised devices: live OAuth grants, with their organization, newest first."""
    return await fetch_all(
        cur,
        "SELECT g.id, g.client_id, g.device_name, g.scopes, g.created_at, o.slug AS organization_slug,"
        " o.name AS organization_name,"
        " (SELECT max(t.created_at) FROM refresh_tokens t WHERE t.grant_id = g.id) AS last_refreshed_at"
        " FROM oauth_grants g JOIN organizations o ON o.id = g.organization_id"
        " WHERE g.user_id = %s AND g.revoked_at IS NULL ORDER BY g.created_at DESC",
        (user_id,),
    )
