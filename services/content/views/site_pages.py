"""Handler of GET /api/v1/site/pages: a page of a product's site pages, with exact totals."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from aiohttp import web

from libs.common.db import Row, cursor
from libs.common.encoding import json_response
from libs.common.schemas import load_query
from libs.common.state import DB_POOL, caller_of
from libs.contract.api_schema import camel_case
from services.content.queries import attachments, site_pages
from services.content.schemas.site_pages import SitePagesQuery
from services.content.shapes import DomainEntries, site_page
from services.content.views.common import scope_of

SITE_PAGES_QUERY = SitePagesQuery()
FILTER_NAMES = ("query", "status", "type", "is_manual", "path_prefix", "has_content", "domain_id", "domain")


async def site_pages_list(request: web.Request) -> web.Response:
    """GET /api/v1/site/pages: a page of the product's site pages, with the filters echoed and exact totals."""
    query = load_query(request, SITE_PAGES_QUERY)
    caller = caller_of(request)
    product = caller.checked_product(query["product_id"])
    filters = {name: query[name] for name in FILTER_NAMES if name in query}
    page, page_size = query["page"], query["page_size"]
    pool = request.app[DB_POOL]

    async def count() -> int:
        async with cursor(pool) as cur:
            return await site_pages.count_pages(cur, product.id, filters)

    async def fetch_page() -> tuple[list[Row], DomainEntries]:
        async with cursor(pool) as cur:
            order = (query["order_by"], query["order_by_direction"])
            rows = await site_pages.list_pages(cur, product.id, filters, *order, page_size, (page - 1) * page_size)
            return rows, await attachments.attachments_of(cur, [str(row["id"]) for row in rows])

    # The total and the page on two connections at once: in autocommit each statement reads its
    # own snapshot anyway, so running them together loses nothing and saves waiting for both.
    total, (rows, domains) = await asyncio.gather(count(), fetch_page())
    data: dict[str, Any] = {"scope": scope_of(caller, product), "page": page, "pageSize": page_size}
    data |= {camel_case(name): query.get(name) for name in FILTER_NAMES}
    data |= {"orderBy": query["order_by"], "orderByDirection": query["order_by_direction"]}
    data |= {"total": total, "totalPages": math.ceil(total / page_size)}
    data["items"] = [site_page(row, domains) for row in rows]
    return json_response(data)
