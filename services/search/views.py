"""POST /api/v1/content/search/{orgId}: semantic search over the organization's documents."""

from __future__ import annotations

from aiohttp import web

from libs.common.encoding import json_response
from libs.common.errors import NotFound
from libs.common.schemas import load_json
from libs.common.state import caller_of
from services.search.filtering import Filters
from services.search.schemas import SearchRequest
from services.search.shapes import answer
from services.search.state import SEARCHER

SEARCH_REQUEST = SearchRequest()


async def content_search(request: web.Request) -> web.Response:
    organization_id = caller_of(request).org.id
    if request.match_info["orgId"].lower() != organization_id:
        raise NotFound("organization not found")
    data = await load_json(request, SEARCH_REQUEST)
    where = data["where"]
    filters = Filters(
        statuses=(where.get("status", "published"),), product_id=where.get("product_id"), type=where.get("type")
    )
    results = await request.app[SEARCHER].search(organization_id, data["query"], filters, data["n_results"])
    return json_response(answer(results, data["include"]))
