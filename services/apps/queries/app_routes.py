"""An app's URL routes (paths pointing at content documents). Plain async functions, cursor first.

A route keeps its path as sent (RFC 3986-normalised) and, beside it, the path's canonical key,
which decides equality: lookups by path compare md5(path_key), which is what the unique index
holds (migrations 001 and 003). Rows read for matching carry the key as `pathKey`, which answers
never show (`public`).
"""

from __future__ import annotations

from typing import Any

import psycopg2.errors

from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_one, is_unique_violation, json_or_null
from libs.common.errors import Conflict, NotFound
from libs.contract.validators import is_uuid
from services.apps.shapes import ROUTE

PATH_KEY = "routes_app_canonical_path_key"


class PathTaken(Conflict):
    """A route was created at one of the paths between the check and the insert."""

    default_message = "another request created a route at one of these paths; no route was created"


def route_from_row(row: Row) -> dict[str, Any]:
    """A route as stored (services/apps/shapes.py) and its path's key, without the target and
    product the views attach."""
    route = ROUTE.of(row)
    route["pathKey"] = row["path_key"]
    return route


def public(route: dict[str, Any]) -> dict[str, Any]:
    """A route as answers show it: without its path's key."""
    return {name: value for name, value in route.items() if name != "pathKey"}


ROUTES_MATCHING = (
    f"SELECT {ROUTE.columns} FROM routes WHERE app_id = %(app_id)s AND deleted_at IS NULL"
    " AND md5(path_key) = ANY(ARRAY(SELECT md5(p) FROM jsonb_array_elements_text(%(keys)s) AS p))"
    f" UNION ALL (SELECT DISTINCT ON (target_id) {ROUTE.columns} FROM routes WHERE app_id = %(app_id)s"
    " AND deleted_at IS NULL"
    " AND target_id = ANY(ARRAY(SELECT t::uuid FROM jsonb_array_elements_text(%(targets)s) AS t))"
    " ORDER BY target_id, path)"
)


async def routes_matching(cur: Any, app_id: str, keys: list[str], target_ids: list[str]) -> list[dict[str, Any]]:
    """The app's routes at any of the canonical paths `keys`, and each of `target_ids`' route with the lowest path.

    Index scans whatever the app's size, and one route per target keeps the answer as small as
    the request however many paths a document has. A route may come twice (at one of `paths`
    and as its target's route); callers index them by path and target. The lists travel as JSON:
    one parameter PostgreSQL parses at once, where an ARRAY[...] of 10,000 literals took longer
    to plan than to run. Both lookups are index scans only where the routes have statistics:
    without them (a table just loaded, before autovacuum analysed it) PostgreSQL reads every route
    of the app instead (docs/performance.md, route candidates).
    """
    rows = await fetch_all(
        cur, ROUTES_MATCHING, {"app_id": app_id, "keys": json_or_null(keys), "targets": json_or_null(target_ids)}
    )
    return [route_from_row(row) for row in rows]


async def all_routes_if_at_most(cur: Any, app_id: str, limit: int) -> list[dict[str, Any]] | None:
    """Every route of the app as `{id, path, pathKey, targetType, targetId}`, or None when it has more than `limit`.

    For route candidates: when the app has no more routes than the product has documents, one
    scan of them is cheaper than matching every document's path and id (routes_matching).
    """
    rows = await fetch_all(
        cur,
        "SELECT id, path, path_key, target_type, target_id FROM routes WHERE app_id = %s AND deleted_at IS NULL"
        " LIMIT %s",
        (app_id, limit + 1),
    )
    if len(rows) > limit:
        return None
    return [
        {
            "id": str(row["id"]),
            "path": row["path"],
            "pathKey": row["path_key"],
            "targetType": row["target_type"],
            "targetId": str(row["target_id"]),
        }
        for row in rows
    ]


async def routed_targets(cur: Any, app_id: str, per_list: int) -> list[str]:
    """The ids of the documents the app routes to, each once, as JSON arrays of at most `per_list`.

    PostgreSQL writes the arrays: an app may route tens of thousands of documents, and 10,000 ids
    read as rows took 150 ms, where one text a list takes a few.
    """
    rows = await fetch_all(
        cur,
        "SELECT json_agg(target_id)::text AS ids FROM (SELECT target_id, (row_number() OVER () - 1) / %s AS part"
        " FROM (SELECT DISTINCT target_id FROM routes WHERE app_id = %s AND deleted_at IS NULL) AS routed)"
        " AS numbered GROUP BY part",
        (per_list, app_id),
    )
    return [row["ids"] for row in rows]


async def routes_version(cur: Any, app_id: str) -> tuple[int, Any]:
    """(how many live routes the app has, when one was last created or changed): a route created
    changes both, one deleted the count, one changed the time. The count reads the live routes'
    index (routes_app_listing_idx), the time is one probe of routes_app_changed_idx."""
    row = await fetch_one(
        cur,
        "SELECT (SELECT count(*) FROM routes WHERE app_id = %(app_id)s AND deleted_at IS NULL) AS live,"
        " (SELECT max(updated_at) FROM routes WHERE app_id = %(app_id)s) AS changed_at",
        {"app_id": app_id},
    )
    assert row is not None  # a SELECT without FROM has its one row
    return row["live"], row["changed_at"]


async def insert_routes(
    cur: Any, organization_id: str, app_id: str, routes: list[tuple[str, str, str, str]]
) -> list[dict[str, Any]]:
    """Insert (path, key, target type, target id) routes in one statement, in the caller's transaction.

    A path the app already has, even one a concurrent transaction has just inserted, is PathTaken:
    the unique index decides.
    """
    columns = [list(column) for column in zip(*routes, strict=True)] if routes else [[], [], [], []]
    try:
        rows = await fetch_all(
            cur,
            "INSERT INTO routes (app_id, organization_id, path, path_key, target_type, target_id)"
            " SELECT %s, %s, path, path_key, target_type, target_id"
            " FROM unnest(%s::text[], %s::text[], %s::text[], %s::uuid[])"
            " AS given(path, path_key, target_type, target_id)"
            f" RETURNING {ROUTE.columns}",
            (app_id, organization_id, *columns),
        )
    except psycopg2.errors.UniqueViolation as exc:
        if not is_unique_violation(exc, PATH_KEY):
            raise
        raise PathTaken() from None
    return [route_from_row(row) for row in rows]


async def get_route(cur: Any, app_id: str, route_id: str, *, for_update: bool = False) -> dict[str, Any]:
    """One route of the app (locked for the caller's transaction when asked); 404 when there is none."""
    row = None
    if is_uuid(route_id):
        lock = " FOR UPDATE" if for_update else ""
        row = await fetch_one(
            cur,
            f"SELECT {ROUTE.columns} FROM routes WHERE id = %s AND app_id = %s AND deleted_at IS NULL{lock}",
            (route_id, app_id),
        )
    if row is None:
        raise NotFound("route not found")
    return route_from_row(row)


async def update_route(cur: Any, app_id: str, route_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    """Change a route's path and/or target; a path taken by another route of the app is a 409. No field, no change."""
    if not changes:
        return await get_route(cur, app_id, route_id)
    assignments = ", ".join(f"{name} = %({name})s" for name in changes)
    with conflict_on_unique(f"the app already has a route at {changes.get('path')}", PATH_KEY):
        row = await fetch_one(
            cur,
            f"UPDATE routes SET {assignments}, updated_at = clock_timestamp()"
            f" WHERE id = %(id)s AND app_id = %(app_id)s AND deleted_at IS NULL RETURNING {ROUTE.columns}",
            {**changes, "id": route_id, "app_id": app_id},
        )
    if row is None:
        raise NotFound("route not found")
    return route_from_row(row)


async def list_routes(
    cur: Any, app_id: str, after: tuple[str, str] | None, limit: int, path_prefix: str | None, target_id: str | None
) -> list[dict[str, Any]]:
    """The app's live routes, oldest first, after the route (createdAt, id) `after`: at most `limit`.

    `path_prefix` is compared with the routes' canonical paths (keys), `target_id` with their targets.
    """
    conditions = ["app_id = %(app_id)s", "deleted_at IS NULL"]
    if after is not None:
        conditions.append("(created_at, id) > (%(after_at)s::timestamptz, %(after_id)s::uuid)")
    if path_prefix is not None:
        conditions.append("left(path_key, length(%(prefix)s)) = %(prefix)s")
    if target_id is not None:
        conditions.append("target_id = %(target_id)s")
    rows = await fetch_all(
        cur,
        f"SELECT {ROUTE.columns} FROM routes WHERE {' AND '.join(conditions)} ORDER BY created_at, id LIMIT %(limit)s",
        {
            "app_id": app_id,
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "prefix": path_prefix,
            "target_id": target_id,
            "limit": limit,
        },
    )
    return [route_from_row(row) for row in rows]


async def delete_route(cur: Any, app_id: str, route_id: str) -> dict[str, Any]:
    """Soft-delete one of the app's live routes; its path is free at once."""
    row = None
    if is_uuid(route_id):
        row = await fetch_one(
            cur,
            "UPDATE routes SET deleted_at = clock_timestamp()"
            f" WHERE id = %s AND app_id = %s AND deleted_at IS NULL RETURNING {ROUTE.columns}",
            (route_id, app_id),
        )
    if row is None:
        raise NotFound("route not found")
    return route_from_row(row)
