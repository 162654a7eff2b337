"""Deleting a whole app, bringing it back, and purging it after its restore window.

An app's delete gives the app and everything of it still live (config, resources, domains,
routes) one `deleted_at`, and marks those things `deleted_with_app`; a restore brings back exactly
the marked ones, never what was deleted on its own before. Until the purge removes the app, its
hostnames stay its own (the index `domains_live_hostname_key`, migration 110).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from libs.common.db import fetch_all, fetch_one, fetch_returned
from libs.common.errors import Conflict, NotFound
from libs.contract.validators import is_uuid
from services.apps.queries.apps import announce as announce_app
from services.apps.queries.apps import slug_conflict
from services.apps.queries.domains import announce as announce_domain
from services.apps.shapes import APP, DOMAIN

# What an app owns, in the order the purge removes it (routes and domains before the app they name).
OWNED_TABLES = ("routes", "domains", "app_resources", "app_configs")


async def delete_app(cur: Any, organization_id: str, app_id: str) -> dict[str, Any]:
    """Soft-delete a live app of the organization and everything live of it, in the caller's transaction."""
    row = None
    if is_uuid(app_id):
        row = await fetch_one(
            cur,
            "UPDATE apps SET deleted_at = clock_timestamp()"
            f" WHERE id = %s AND organization_id = %s AND deleted_at IS NULL RETURNING {APP.columns}",
            (app_id, organization_id),
        )
    if row is None:
        raise NotFound("app not found")
    for table in OWNED_TABLES:
        # The domains are announced deleted, as one deleted on its own is (routes: their trigger).
        returning = f" RETURNING {DOMAIN.columns}" if table == "domains" else ""
        await cur.execute(
            f"UPDATE {table} SET deleted_at = %s, deleted_with_app = true WHERE app_id = %s AND deleted_at IS NULL"
            + returning,
            (row["deleted_at"], app_id),
        )
        if returning:
            for domain in await cur.fetchall():
                await announce_domain(cur, "deleted", organization_id, DOMAIN.of(domain))
    app = APP.of(row)
    await announce_app(cur, "deleted", app)
    return app


async def restore_app(cur: Any, organization_id: str, app_id: str, restore_days: int) -> None:
    """Bring back a deleted app and what its delete took, in the caller's transaction.

    404 for an unknown app, another organization's, or one deleted more than `restore_days` ago;
    409 for an app that is not deleted, or whose slug a live app has taken meanwhile.
    """
    row = None
    if is_uuid(app_id):
        row = await fetch_one(
            cur,
            "SELECT slug, deleted_at, deleted_at > clock_timestamp() - make_interval(days => %s) AS restorable"
            " FROM apps WHERE id = %s AND organization_id = %s FOR UPDATE",
            (restore_days, app_id, organization_id),
        )
    if row is None or (row["deleted_at"] is not None and not row["restorable"]):
        raise NotFound("app not found")
    if row["deleted_at"] is None:
        raise Conflict("the app is not deleted")
    with slug_conflict(row["slug"]):
        restored = await fetch_returned(
            cur, f"UPDATE apps SET deleted_at = NULL WHERE id = %s RETURNING {APP.columns}", (app_id,)
        )
    for table in OWNED_TABLES:
        await cur.execute(
            f"UPDATE {table} SET deleted_at = NULL, deleted_with_app = false WHERE app_id = %s AND deleted_with_app",
            (app_id,),
        )
    await announce_app(cur, "restored", APP.of(restored))


async def purge_apps(cur: Any, restore_days: int, limit: int) -> int:
    """Remove up to `limit` apps deleted more than `restore_days` ago, with everything they own, in
    the caller's transaction; how many were removed. Their hostnames are free from then on."""
    rows = await fetch_all(
        cur,
        "SELECT id FROM apps WHERE deleted_at <= clock_timestamp() - make_interval(days => %s)"
        " ORDER BY deleted_at LIMIT %s FOR UPDATE SKIP LOCKED",
        (restore_days, limit),
    )
    ids = [str(row["id"]) for row in rows]
    if ids:
        # Their domains are withdrawn: those content has not been told of yet wait to be announced.
        await cur.execute(
            "INSERT INTO purged_domains (id, organization_id) SELECT id, organization_id FROM domains"
            " WHERE app_id = ANY(%s::uuid[]) AND withdrawal_announced_at IS NULL ON CONFLICT (id) DO NOTHING",
            (ids,),
        )
        for table in OWNED_TABLES:
            await cur.execute(f"DELETE FROM {table} WHERE app_id = ANY(%s::uuid[])", (ids,))
        await cur.execute("DELETE FROM apps WHERE id = ANY(%s::uuid[])", (ids,))
    return len(ids)


async def list_deleted(
    cur: Any, organization_id: str, restore_days: int, after: tuple[datetime, str] | None, limit: int
) -> list[dict[str, Any]]:
    """The organization's apps deleted within the restore window, most recently deleted first,
    after the app (deletedAt, id) `after`: at most `limit`, each with when its restore window ends."""
    rows = await fetch_all(
        cur,
        f"SELECT {APP.columns}, deleted_at + make_interval(days => %(days)s) AS restorable_until FROM apps"
        " WHERE organization_id = %(organization_id)s AND deleted_at IS NOT NULL"
        " AND deleted_at > clock_timestamp() - make_interval(days => %(days)s)"
        " AND (%(after_at)s::timestamptz IS NULL OR (deleted_at, id) < (%(after_at)s::timestamptz, %(after_id)s::uuid))"
        " ORDER BY deleted_at DESC, id DESC LIMIT %(limit)s",
        {
            "organization_id": organization_id,
            "days": restore_days,
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": limit,
        },
    )
    return [{**APP.of(row), "restorableUntil": row["restorable_until"]} for row in rows]
