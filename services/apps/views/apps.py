"""Handlers of apps and their config."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.schemas import load_json
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.apps.queries import apps as queries
from services.apps.queries import deletion
from services.apps.schemas.requests import AppConfigUpdate, AppCreate, AppUpdate
from services.apps.slugs import derive_slug

APP_CREATE = AppCreate()
APP_UPDATE = AppUpdate()
CONFIG_UPDATE = AppConfigUpdate()


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
    return json_response(app, status=201)


async def apps_get(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}: the app with its config and resources."""
    async with cursor(request.app[DB_POOL]) as cur:
        app = await queries.get_app(cur, caller_of(request).org.id, request.match_info["appId"])
    return json_response(app)


async def apps_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/apps/{appId}: change the given name, slug and metadata."""
    data = await load_json(request, APP_UPDATE)
    async with cursor(request.app[DB_POOL]) as cur:
        app = await queries.update_app(cur, caller_of(request).org.id, request.match_info["appId"], data)
    return json_response(app)


async def apps_config_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/apps/{appId}/app-config: replace the app's config object."""
    data = await load_json(request, CONFIG_UPDATE)
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with cursor(request.app[DB_POOL]) as cur:
        config = await queries.replace_config(cur, organization_id, app_id, data["config"])
    return json_response(config)


async def apps_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/apps/{appId}: soft-delete the app with everything of it; answers the app with `deletedAt`."""
    async with transaction(request.app[DB_POOL]) as cur:
        app = await deletion.delete_app(cur, caller_of(request).org.id, request.match_info["appId"])
    return json_response(app)


async def apps_restore(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/restore: bring back a deleted app and what its delete took; answers the app."""
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await deletion.restore_app(cur, organization_id, app_id, request.app[SETTINGS].restore_days)
        app = await queries.get_app(cur, organization_id, app_id)
    return json_response(app)
