"""/{orgSlug}/settings/api-keys: an organization's API keys."""

from __future__ import annotations

from aiohttp import web

from gateway import queries
from gateway.dashboard.render import render
from gateway.dashboard.session import require_membership
from gateway.keys import CLOCK
from libs.common.db import cursor
from libs.common.keys import DB_POOL


async def key_list(request: web.Request) -> web.Response:
    """GET: every key of the organization, with its state; owners and admins also get the forms."""
    _, membership = await require_membership(request, request.match_info["org"])
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.list_api_keys(cur, membership.organization_id)
    now = request.app[CLOCK]()
    return await render(request, "api_keys.html", {"membership": membership, "keys": rows, "now": now})


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/{org}/settings/api-keys", key_list, name="dashboard.api_keys")
