"""Apps, their configs and their resources. Plain async functions, cursor first, organization-scoped."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from libs.common import webhook_outbox
from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_one, fetch_returned, json_or_null
from libs.common.errors import NotFound
from libs.common.etags import etag
from libs.contract.validators import is_uuid
from services.apps.shapes import APP, CONFIG, RESOURCE


async def announce(cur: Any, intent: str, app: dict[str, Any]) -> None:
    """Queue `app.<intent>` with the app as the API shows it, in the caller's transaction."""
    await webhook_outbox.record(cur, f"app.{intent}", str(app["organizationId"]), f"app:{app['id']}", app)


def app_etag(app: dict[str, Any]) -> str:
    """The app's version: its own, its config's and its live resources', all of which its answer shows."""
    resources = (f"{resource['id']}@{resource['updatedAt']}" for resource in app["resources"])
    return etag(app["id"], app["updatedAt"], app["appConfig"]["updatedAt"], *resources)


def slug_conflict(slug: str) -> AbstractContextManager[None]:
    return conflict_on_unique(f"an app with the slug {slug!r} already exists", "apps_live_slug_key")


async def list_apps(cur: Any, organization_id: str) -> list[dict[str, Any]]:
    rows = await fetch_all(
        cur,
        f"SELECT {APP.columns} FROM apps WHERE organization_id = %s AND deleted_at IS NULL ORDER BY created_at, id",
        (organization_id,),
    )
    return [APP.of(row) for row in rows]


async def create_app(
    cur: Any, organization_id: str, name: str, slug: str, metadata: Any, app_id: str | None = None
) -> dict[str, Any]:
    """An app and its empty config, in the caller's transaction; a slug live in the organization is a 409.

    `app_id` fixes the id (the demo seed); otherwise the database makes one.
    """
    with slug_conflict(slug):
        app = await fetch_returned(
            cur,
            "INSERT INTO apps (id, organization_id, name, slug, metadata)"
            f" VALUES (COALESCE(%s, gen_random_uuid()), %s, %s, %s, %s) RETURNING {APP.columns}",
            (app_id, organization_id, name, slug, json_or_null(metadata)),
        )
    config = await fetch_returned(
        cur,
        f"INSERT INTO app_configs (app_id, organization_id) VALUES (%s, %s) RETURNING {CONFIG.columns}",
        (app["id"], organization_id),
    )
    await announce(cur, "created", APP.of(app))
    return {**APP.of(app), "appConfig": CONFIG.of(config)}


async def find_app_row(cur: Any, organization_id: str, app_id: str, lock: bool = False) -> Row | None:
    """The organization's live app; with `lock`, share-locked until the caller's transaction ends, so the
    app cannot be deleted before what the transaction adds to it is committed (and so taken with it)."""
    if not is_uuid(app_id):
        return None
    return await fetch_one(
        cur,
        f"SELECT {APP.columns} FROM apps WHERE id = %s AND organization_id = %s AND deleted_at IS NULL"
        + (" FOR SHARE" if lock else ""),
        (app_id, organization_id),
    )


async def app_exists(cur: Any, app_id: str) -> bool:
    """Whether the app is stored at all, live or deleted (the demo seed, which fixes its id)."""
    return await fetch_one(cur, "SELECT 1 FROM apps WHERE id = %s", (app_id,)) is not None


async def require_app(cur: Any, organization_id: str, app_id: str, lock: bool = False) -> Row:
    """The organization's live app, or 404 (also for an id that is not a UUID, or another's app);
    `lock` as find_app_row."""
    row = await find_app_row(cur, organization_id, app_id, lock)
    if row is None:
        raise NotFound("app not found")
    return row


async def lock_app_version(cur: Any, organization_id: str, app_id: str) -> str:
    """Lock the live app's row for the caller's transaction and answer its ETag; 404 when there is none.

    Writes checking `If-Match` take this lock first, so none can change the app between another's check and write.
    """
    if not is_uuid(app_id) or not await fetch_one(
        cur,
        "SELECT 1 FROM apps WHERE id = %s AND organization_id = %s AND deleted_at IS NULL FOR UPDATE",
        (app_id, organization_id),
    ):
        raise NotFound("app not found")
    return app_etag(await get_app(cur, organization_id, app_id))


async def get_app(cur: Any, organization_id: str, app_id: str) -> dict[str, Any]:
    """An app with its config and resources."""
    app = await require_app(cur, organization_id, app_id)
    config = await fetch_one(
        cur, f"SELECT {CONFIG.columns} FROM app_configs WHERE app_id = %s AND deleted_at IS NULL", (app_id,)
    )
    if config is None:
        raise RuntimeError(f"app {app_id} has no live config")
    return {
        **APP.of(app),
        "appConfig": CONFIG.of(config),
        "resources": [RESOURCE.of(row) for row in await list_resource_rows(cur, app_id)],
    }


async def update_app(cur: Any, organization_id: str, app_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    """Change the given fields of a live app; a slug taken by another live app is a 409. No field, no change."""
    if not changes:
        return APP.of(await require_app(cur, organization_id, app_id))
    if not is_uuid(app_id):
        raise NotFound("app not found")
    values = {**changes, **({"metadata": json_or_null(changes["metadata"])} if "metadata" in changes else {})}
    assignments = ", ".join(f"{name} = %({name})s" for name in changes)
    with slug_conflict(changes.get("slug", "")):
        row = await fetch_one(
            cur,
            f"UPDATE apps SET {assignments}, updated_at = clock_timestamp()"
            " WHERE id = %(id)s AND organization_id = %(organization_id)s AND deleted_at IS NULL"
            f" RETURNING {APP.columns}",
            {**values, "id": app_id, "organization_id": organization_id},
        )
    if row is None:
        raise NotFound("app not found")
    app = APP.of(row)
    await announce(cur, "updated", app)
    return app


async def replace_config(cur: Any, organization_id: str, app_id: str, config: dict[str, Any]) -> dict[str, Any]:
    if not is_uuid(app_id):
        raise NotFound("app not found")
    row = await fetch_one(
        cur,
        "UPDATE app_configs SET config = %s, updated_at = clock_timestamp()"
        f" WHERE app_id = %s AND organization_id = %s AND deleted_at IS NULL RETURNING {CONFIG.columns}",
        (json_or_null(config), app_id, organization_id),
    )
    if row is None:
        raise NotFound("app not found")
    return CONFIG.of(row)


async def list_resource_rows(cur: Any, app_id: str) -> list[Row]:
    return await fetch_all(
        cur,
        f"SELECT {RESOURCE.columns} FROM app_resources WHERE app_id = %s AND deleted_at IS NULL"
        " ORDER BY created_at, id",
        (app_id,),
    )


async def create_resource(
    cur: Any, organization_id: str, app_id: str, resource_type: str, resource_id: str
) -> dict[str, Any]:
    """Add a resource to an app, in the caller's transaction; the first product becomes the config's."""
    with conflict_on_unique(f"this app already has the {resource_type} {resource_id}", "app_resources_live_key"):
        row = await fetch_returned(
            cur,
            "INSERT INTO app_resources (app_id, organization_id, resource_type, resource_id)"
            f" VALUES (%s, %s, %s, %s) RETURNING {RESOURCE.columns}",
            (app_id, organization_id, resource_type, resource_id),
        )
    await cur.execute(
        "UPDATE app_configs SET product_id = %s, updated_at = clock_timestamp()"
        " WHERE app_id = %s AND product_id IS NULL AND deleted_at IS NULL",
        (resource_id, app_id),
    )
    return RESOURCE.of(row)


async def delete_resource(cur: Any, app_id: str, resource_id: str) -> dict[str, Any]:
    """Soft-delete one of the app's live resources, in the caller's transaction.

    The config's product is the app's first product: when that one goes, the next oldest does.
    """
    row = None
    if is_uuid(resource_id):
        row = await fetch_one(
            cur,
            "UPDATE app_resources SET deleted_at = clock_timestamp()"
            f" WHERE id = %s AND app_id = %s AND deleted_at IS NULL RETURNING {RESOURCE.columns}",
            (resource_id, app_id),
        )
    if row is None:
        raise NotFound("resource not found")
    await cur.execute(
        "UPDATE app_configs SET updated_at = clock_timestamp(), product_id = (SELECT resource_id FROM app_resources"
        " WHERE app_id = %(app)s AND resource_type = 'product' AND deleted_at IS NULL ORDER BY created_at, id LIMIT 1)"
        " WHERE app_id = %(app)s AND deleted_at IS NULL AND product_id = %(product)s",
        {"app": app_id, "product": row["resource_id"]},
    )
    return RESOURCE.of(row)


async def live_app_ids(cur: Any, organization_id: str, ids: list[str]) -> set[str]:
    """Which of `ids` are live apps of the organization."""
    rows = await fetch_all(
        cur,
        "SELECT id FROM apps WHERE organization_id = %s AND id = ANY(%s::uuid[]) AND deleted_at IS NULL",
        (organization_id, [app_id for app_id in ids if is_uuid(app_id)]),
    )
    return {str(row["id"]) for row in rows}
