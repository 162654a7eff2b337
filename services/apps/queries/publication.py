"""What an App publishes for agents (llms.txt, its markdown pages, its sitemap), read in one go.
Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_one, fetch_value
from libs.contract.validators import is_uuid
from services.apps.queries.domains import held


async def published_app(cur: Any, organization_id: str, app_id: str) -> Row | None:
    """A live app's name, metadata, config, verified web domains (hostnames, first added first) and products
    (first added first), with `changed_at`, when any of these or the app's routes last changed,
    its routes' count and when a product name last changed. None for an unknown app.

    The routes' paths and targets are read apart (`route_listing`); their last change is here so
    that a page of one route costs no scan of the others beyond the index.
    """
    if not is_uuid(app_id):
        return None
    return await fetch_one(
        cur,
        "SELECT a.name, a.metadata, c.config,"
        # An unverified claim is nobody's address yet: only verified web domains are the App's.
        " ARRAY(SELECT d.domain FROM domains d WHERE d.app_id = a.id AND d.type = 'web'"
        f" AND d.verified_at IS NOT NULL AND {held('d')}"
        " ORDER BY d.created_at, d.id) AS domains,"
        " ARRAY(SELECT r.resource_id::text FROM app_resources r WHERE r.app_id = a.id"
        " AND r.resource_type = 'product' AND r.deleted_at IS NULL ORDER BY r.created_at, r.id) AS products,"
        " (SELECT count(*) FROM routes r WHERE r.app_id = a.id AND r.deleted_at IS NULL) AS route_count,"
        " (SELECT max(p.updated_at) FROM products p WHERE p.organization_id = a.organization_id)"
        " AS products_changed_at,"
        " GREATEST(a.updated_at, c.updated_at,"
        # A delete stamps `deleted_at` only: it is a change too.
        " (SELECT max(GREATEST(d.updated_at, d.deleted_at, d.released_at)) FROM domains d WHERE d.app_id = a.id),"
        " (SELECT max(GREATEST(r.updated_at, r.deleted_at)) FROM routes r WHERE r.app_id = a.id)) AS changed_at"
        " FROM apps a JOIN app_configs c ON c.app_id = a.id AND c.deleted_at IS NULL"
        " WHERE a.id = %s AND a.organization_id = %s AND a.deleted_at IS NULL",
        (app_id, organization_id),
    )


async def route_listing(cur: Any, app_id: str) -> str:
    """The app's routes as a JSON array of `[path, targetId]`, in no set order.

    PostgreSQL writes the array: 10,000 routes read as rows take several times longer than one text.
    """
    listing: str = await fetch_value(
        cur,
        "SELECT COALESCE(json_agg(json_build_array(path, target_id)), '[]')::text FROM routes"
        " WHERE app_id = %s AND deleted_at IS NULL",
        (app_id,),
    )
    return listing


async def route_target(cur: Any, app_id: str, path_key: str) -> Row | None:
    """The app's route at the canonical path `path_key`: its path, target and last change."""
    return await fetch_one(
        cur,
        "SELECT path, target_id::text AS target_id, updated_at FROM routes"
        " WHERE app_id = %s AND md5(path_key) = md5(%s) AND deleted_at IS NULL",
        (app_id, path_key),
    )
