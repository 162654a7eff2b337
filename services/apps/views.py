"""Handlers of the apps service, grouped by resource."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.keys import DB_POOL, caller_of
from libs.common.schemas import load_json
from services.apps import queries
from services.apps.schemas import DomainResolve

DOMAIN_RESOLVE = DomainResolve()


async def internal_domains_resolve(request: web.Request) -> web.Response:
    """POST /internal/domains/resolve: the live domains among `ids` of the caller's organization."""
    data = await load_json(request, DOMAIN_RESOLVE)
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.resolve_domains(cur, caller_of(request).org.id, data["ids"])
    return json_response({"domains": [{"id": row["id"], "domain": row["domain"]} for row in rows]})
