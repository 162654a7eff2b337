"""Claims on hostnames: who holds one, challenges of newcomers, checks, releases. Cursor first."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_all, fetch_one, fetch_returned, json_or_null
from libs.contract.validators import is_uuid
from services.apps.queries.domains import announce
from services.apps.shapes import DOMAIN


async def lock_holder(cur: Any, hostname: str, grace_seconds: int) -> Row | None:
    """The domain holding `hostname` (lapsed or not; a deleted app's, which keeps its hostnames until
    the purge, too), locked until the transaction ends; `lapsed` says whether its unverified claim has
    run out, `reclaimable` whether it is verified but its record has been missing `grace_seconds`."""
    return await fetch_one(
        cur,
        f"SELECT {DOMAIN.columns}, expires_at <= clock_timestamp() AS lapsed,"
        " COALESCE(record_missing_since <= clock_timestamp() - make_interval(secs => %s), false) AS reclaimable"
        " FROM domains"
        " WHERE domain = %s AND (deleted_at IS NULL OR deleted_with_app) AND released_at IS NULL FOR UPDATE",
        (grace_seconds, hostname),
    )


async def release(cur: Any, domain_id: str, reason: str) -> dict[str, Any] | None:
    """End a claim: it lapsed ('expired', released as of its expiry) or another organization proved
    the hostname ('claimed', released now). The released domain; None when it was released already."""
    row = await fetch_one(
        cur,
        "UPDATE domains SET release_reason = %(reason)s, updated_at = clock_timestamp(),"
        " released_at = CASE WHEN %(reason)s = 'expired' THEN expires_at ELSE clock_timestamp() END"
        f" WHERE id = %(id)s AND released_at IS NULL RETURNING {DOMAIN.columns}",
        {"id": domain_id, "reason": reason},
    )
    return None if row is None else DOMAIN.of(row)


async def challenge_for(
    cur: Any, organization_id: str, app_id: str, hostname: str, days: int, token: str
) -> tuple[Row, bool]:
    """The app's current challenge for `hostname`, made with `token` (valid `days` days) when it has
    none that holds; and whether it is new."""
    await cur.execute(
        "DELETE FROM domain_challenges WHERE app_id = %s AND domain = %s AND expires_at <= clock_timestamp()",
        (app_id, hostname),
    )
    made = await fetch_one(
        cur,
        "INSERT INTO domain_challenges (organization_id, app_id, domain, token, expires_at)"
        " VALUES (%s, %s, %s, %s, clock_timestamp() + make_interval(days => %s))"
        " ON CONFLICT (app_id, domain) DO NOTHING RETURNING token, expires_at",
        (organization_id, app_id, hostname, token, days),
    )
    if made is not None:
        return made, True
    found = await fetch_returned(
        cur, "SELECT token, expires_at FROM domain_challenges WHERE app_id = %s AND domain = %s", (app_id, hostname)
    )
    return found, False


async def drop_challenge(cur: Any, app_id: str, hostname: str) -> None:
    await cur.execute("DELETE FROM domain_challenges WHERE app_id = %s AND domain = %s", (app_id, hostname))


async def find_app_domain(cur: Any, app_id: str, domain_id: str) -> dict[str, Any] | None:
    """One of the app's domains that is not deleted (released or not)."""
    if not is_uuid(domain_id):
        return None
    row = await fetch_one(
        cur,
        f"SELECT {DOMAIN.columns} FROM domains WHERE id = %s AND app_id = %s AND deleted_at IS NULL",
        (domain_id, app_id),
    )
    return None if row is None else DOMAIN.of(row)


async def record_check(
    cur: Any, organization_id: str, domain_id: str, error: dict[str, str] | None
) -> dict[str, Any] | None:
    """Store a check of a domain still claimed unverified: verified when `error` is None (announced
    as `app.domain.verified`), else the error. None when the domain no longer is such a claim
    (released, lapsed or verified meanwhile)."""
    row = await fetch_one(
        cur,
        "UPDATE domains SET verification_checked_at = clock_timestamp(), verification_error = %(error)s,"
        " verified_at = CASE WHEN %(error)s IS NULL THEN clock_timestamp() END,"
        " expires_at = CASE WHEN %(error)s IS NULL THEN NULL ELSE expires_at END, updated_at = clock_timestamp()"
        " WHERE id = %(id)s AND deleted_at IS NULL AND released_at IS NULL AND verified_at IS NULL"
        f" AND expires_at > clock_timestamp() RETURNING {DOMAIN.columns}",
        {"id": domain_id, "error": json_or_null(error)},
    )
    if row is None:
        return None
    domain = DOMAIN.of(row)
    if domain["verified"]:
        await announce(cur, "verified", organization_id, domain)
    return domain


async def release_lapsed(cur: Any) -> int:
    """Release every unverified claim past its expiry; how many."""
    await cur.execute(
        "UPDATE domains SET released_at = expires_at, release_reason = 'expired', updated_at = clock_timestamp()"
        " WHERE released_at IS NULL AND expires_at <= clock_timestamp()"
    )
    released = int(cur.rowcount)
    await cur.execute("DELETE FROM domain_challenges WHERE expires_at <= clock_timestamp()")
    return released


async def due_rechecks(cur: Any, every_seconds: int, limit: int) -> list[Row]:
    """Verified app domains whose record was last seen (or the domain verified) `every_seconds` ago
    or longer, longest first."""
    return await fetch_all(
        cur,
        "SELECT id::text, domain, verification_token FROM domains"
        " WHERE scope = 'app' AND verified_at IS NOT NULL AND released_at IS NULL AND deleted_at IS NULL"
        " AND COALESCE(record_checked_at, verified_at) <= clock_timestamp() - make_interval(secs => %s)"
        " ORDER BY COALESCE(record_checked_at, verified_at) LIMIT %s",
        (every_seconds, limit),
    )


async def record_recheck(cur: Any, domain_id: str, present: bool) -> None:
    """Store a recheck of a verified domain's record: present, or missing since the first check that
    found it absent. The domain changes (`updatedAt`) only when the record goes or comes back."""
    await cur.execute(
        "UPDATE domains SET record_checked_at = clock_timestamp(),"
        " record_missing_since = CASE WHEN %(present)s THEN NULL"
        " ELSE COALESCE(record_missing_since, clock_timestamp()) END,"
        " updated_at = CASE WHEN (record_missing_since IS NULL) = %(present)s THEN updated_at"
        " ELSE clock_timestamp() END"
        " WHERE id = %(id)s AND verified_at IS NOT NULL AND released_at IS NULL",
        {"id": domain_id, "present": present},
    )


# A domain is withdrawn when its claim was released, when it was deleted on its own (one deleted
# with its app comes back with a restore) and when its app was purged (purged_domains, migration 170).
WITHDRAWN = "(released_at IS NOT NULL OR (deleted_at IS NOT NULL AND NOT deleted_with_app))"


async def unannounced(cur: Any, limit: int) -> list[Row]:
    """Withdrawn domains the content service has not been told of yet, oldest withdrawal first."""
    return await fetch_all(
        cur,
        "SELECT id, organization_id FROM ("
        " SELECT id, organization_id, LEAST(released_at, deleted_at) AS withdrawn_at FROM domains"
        f" WHERE {WITHDRAWN} AND withdrawal_announced_at IS NULL"
        " UNION ALL SELECT id, organization_id, purged_at FROM purged_domains"
        ") withdrawn ORDER BY withdrawn_at, id LIMIT %s",
        (limit,),
    )


async def mark_announced(cur: Any, ids: list[str]) -> None:
    """Record that content was told of the withdrawn domains `ids`, in the caller's transaction."""
    await cur.execute(
        "UPDATE domains SET withdrawal_announced_at = clock_timestamp() WHERE id = ANY(%s::uuid[])", (ids,)
    )
    await cur.execute("DELETE FROM purged_domains WHERE id = ANY(%s::uuid[])", (ids,))
