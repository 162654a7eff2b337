"""Handlers of apps and their config."""

from __future__ import annotations

from aiohttp import web
from aiopg import Cursor

from libs.common.cursors import page_of
from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.etags import IF_MATCH, check_if_match, versioned_response
from libs.common.schemas import load_json, load_query
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.apps.queries import apps as queries
from services.apps.queries import deletion
from services.apps.schemas.requests import AppConfigUpdate, AppCreate, AppUpdate, DeletedAppsQuery
from services.apps.slugs import derive_slug

APP_CREATE = AppCreate()
APP_UPDATE = AppUpdate()
CONFIG_UPDATE = AppConfigUpdate()
DELETED_QUERY = DeletedAppsQuery()


async def apps_list(request: web.Request) -> web.Response:
    """GET /api/v1/apps: the organization's live apps, oldest first, without config and resources."""
    async with cursor(request.app[DB_POOL]) as cur:
        apps = await queries.list_apps(cur, caller_of(request).org.id)
    return json_response(apps)


async def apps_create(request: web.Request) -> web.Response:
    """POST /api/v1/apps: an app and its empty config; the slug is derived from the name when absent."""
    data = await load_json(request, APP_CREATE)
    slug = data.get("slug") or derive_slug(data["name"])
    async with transaction(request.app[DB_POOL]) as cur:
        app = await queries.create_app(cur, caller_of(request).org.id, data["name"], slug, data["metadata"])
    return versioned_response(request, app, queries.app_etag({**app, "resources": []}), status=201)


async def apps_get(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}: the app with its config and resources."""
    async with cursor(request.app[DB_POOL]) as cur:
        app = await queries.get_app(cur, caller_of(request).org.id, request.match_info["appId"])
    return versioned_response(request, app, queries.app_etag(app))


async def _check_version(request: web.Request, cur: Cursor, organization_id: str, app_id: str) -> None:
    """With `If-Match`, 412 unless it names the app's current version, checked under the app's row lock."""
    if IF_MATCH in request.headers:
        check_if_match(request, await queries.lock_app_version(cur, organization_id, app_id))


async def apps_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/apps/{appId}: change the given name, slug and metadata (of the version `If-Match` names)."""
    data = await load_json(request, APP_UPDATE)
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await _check_version(request, cur, organization_id, app_id)
        app = await queries.update_app(cur, organization_id, app_id, data)
        version = queries.app_etag(await queries.get_app(cur, organization_id, app_id))
    return versioned_response(request, app, version)


async def apps_config_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/apps/{appId}/app-config: replace the app's config object; the config is part of the
    app, so `If-Match` and the answer's ETag are the app's version."""
    data = await load_json(request, CONFIG_UPDATE)
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await _check_version(request, cur, organization_id, app_id)
        config = await queries.replace_config(cur, organization_id, app_id, data["config"])
        version = queries.app_etag(await queries.get_app(cur, organization_id, app_id))
    return versioned_response(request, config, version)


async def apps_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/apps/{appId}: soft-delete the app with everything of it (if it is still the version
    `If-Match` names); answers the app with `deletedAt`."""
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await _check_version(request, cur, organization_id, app_id)
        app = await deletion.delete_app(cur, organization_id, app_id)
    return json_response(app)


async def apps_restore(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/restore: bring back a deleted app and what its delete took; answers the app."""
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await deletion.restore_app(cur, organization_id, app_id, request.app[SETTINGS].restore_days)
        app = await queries.get_app(cur, organization_id, app_id)
    return json_response(app)


async def apps_deleted_list(request: web.Request) -> web.Response:
    """GET /api/v1/deleted-apps: the apps deleted within their restore window, most recently deleted
    first, each with `restorableUntil`; `{items, nextCursor}`, a page at a time."""
    query = load_query(request, DELETED_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        found = await deletion.list_deleted(
            cur, caller_of(request).org.id, request.app[SETTINGS].restore_days, query.get("cursor"), query["limit"] + 1
        )
    items, next_cursor = page_of(found, query["limit"], lambda app: (app["deletedAt"], app["id"]))
    return json_response({"items": items, "nextCursor": next_cursor})
