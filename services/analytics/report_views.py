"""Handlers of the analytics reports: numbers over periods of UTC days, read from the daily
rollups."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.schemas import load_json, load_query
from libs.common.state import DB_POOL, caller_of
from services.analytics import overview, report_query
from services.analytics.brand_sets import BRAND
from services.analytics.report_schemas import AnalyticsQuery, OverviewQuery, default_period
from services.analytics.report_shapes import Overview, QueryResult
from services.analytics.state import PERSONAS

OVERVIEW_QUERY = OverviewQuery()
OVERVIEW = Overview()
ANALYTICS_QUERY = AnalyticsQuery()
QUERY_RESULT = QueryResult()


async def analytics_overview(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/analytics/overview: the brand and each competitor over
    `[from, to)` (UTC days; the last 30 by default) beside the period of the same length before."""
    caller = caller_of(request)
    product = caller.checked_product(request.match_info["productId"])
    query = load_query(request, OVERVIEW_QUERY)
    start, end = (query["from_"], query["to"]) if "from_" in query else default_period()
    competitors = await request.app[PERSONAS].competitor_set(caller, product.id)
    async with cursor(request.app[DB_POOL]) as cur:
        answer_rows, brand_rows, brand_name = await overview.read(cur, caller.org.id, product.id, start, end)
    tracked = [(BRAND, brand_name or product.name)]
    tracked += [(competitor["id"], competitor["name"]) for competitor in competitors["competitors"]]
    answers, brands = overview.overview(tracked, answer_rows, brand_rows)
    return json_response(OVERVIEW.dump({
        "product_id": product.id,
        "time_zone": "UTC",
        "period": {"from_": start, "to": end},
        "previous_period": {"from_": start - (end - start), "to": start},
        "answers": answers[True],
        "previous_answers": answers[False],
        "brands": brands,
    }))  # fmt: skip


async def analytics_query(request: web.Request) -> web.Response:
    """POST /api/v1/analytics/query: a report over `[from, to)` (UTC days), by day, week or month;
    a read, POST for its body."""
    caller = caller_of(request)
    query = await load_json(request, ANALYTICS_QUERY)
    product = caller.checked_product(query["product_id"])
    async with cursor(request.app[DB_POOL]) as cur:
        items = await report_query.run(cur, caller.org.id, product.id, query)
    return json_response(QUERY_RESULT.dump({
        "report": query["report"],
        "time_zone": "UTC",
        "week_starts": "monday",
        "granularity": query["granularity"],
        "items": items,
    }))  # fmt: skip
