"""Handler of the deprecated legacy routing config (the gateway answers its sunset)."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.errors import NotFound
from libs.common.state import DB_POOL, caller_of
from services.apps.queries import domains as queries


async def legacy_routing_get(request: web.Request) -> web.Response:
    """GET /api/v1/domain/{id}/routing: the routing config of one of the organization's domains."""
    async with cursor(request.app[DB_POOL]) as cur:
        routing = await queries.find_legacy_routing(cur, caller_of(request).org.id, request.match_info["id"])
    if routing is None:
        raise NotFound("no legacy routing config for this domain")
    return json_response(routing)
