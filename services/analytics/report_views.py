"""Handlers of the analytics reports: numbers over periods of days in a named time zone, read from
the rollups (report_sources.py: daily for UTC, hourly for other zones)."""

from __future__ import annotations

from datetime import date
from typing import Any

from aiohttp import web

from libs.common.encoding import json_response
from libs.common.schemas import load_json, load_query
from libs.common.state import DB_POOL, caller_of
from services.analytics import overview, report_query, traffic_report
from services.analytics.brand_sets import BRAND
from services.analytics.report_schemas import TRAFFIC_REPORT, AnalyticsQuery, OverviewQuery, default_period
from services.analytics.report_shapes import Overview, QueryResult
from services.analytics.report_sources import reading
from services.analytics.state import PERSONAS, TRAFFIC

OVERVIEW_QUERY = OverviewQuery()
OVERVIEW = Overview()
ANALYTICS_QUERY = AnalyticsQuery()
QUERY_RESULT = QueryResult()


async def analytics_overview(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/analytics/overview: the brand and each competitor over
    `[from, to)` (days in `timeZone`, UTC by default; the last 30 by default) beside the period of
    the same length before."""
    caller = caller_of(request)
    product = caller.checked_product(request.match_info["productId"])
    query = load_query(request, OVERVIEW_QUERY)
    zone = query["time_zone"]
    start, end = (query["from_"], query["to"]) if "from_" in query else default_period(zone)
    competitors = await request.app[PERSONAS].competitor_set(caller, product.id)
    async with reading(request.app[DB_POOL], zone) as cur:
        answer_rows, brand_rows, brand_name = await overview.read(cur, caller.org.id, product.id, start, end, zone)
    tracked = [(BRAND, brand_name or product.name)]
    tracked += [(competitor["id"], competitor["name"]) for competitor in competitors["competitors"]]
    return json_response(overview_answer(product.id, zone, start, end, tracked, answer_rows, brand_rows))


def overview_answer(
    product_id: str,
    zone: str,
    start: date,
    end: date,
    tracked: list[tuple[str, str]],
    answer_rows: Any,
    brand_rows: Any,
) -> dict[str, Any]:
    """The overview's answer: the `tracked` brands over `[start, end)` and the period before, from
    the sums `overview.read` gave."""
    answers, brands = overview.overview(tracked, answer_rows, brand_rows)
    shaped: dict[str, Any] = OVERVIEW.dump(
        {
            "product_id": product_id,
            "time_zone": zone,
            "period": {"from_": start, "to": end},
            "previous_period": {"from_": start - (end - start), "to": start},
            "answers": answers[True],
            "previous_answers": answers[False],
            "brands": brands,
        }
    )
    return shaped


async def analytics_query(request: web.Request) -> web.Response:
    """POST /api/v1/analytics/query: a page of a report over `[from, to)` (days in `timeZone`),
    by day, week or month; a read, POST for its body."""
    caller = caller_of(request)
    query = await load_json(request, ANALYTICS_QUERY)
    if query["report"] == TRAFFIC_REPORT:
        traffic = request.app[TRAFFIC]
        items, after = await report_query.run(query, lambda asked: traffic_report.items(traffic, caller, asked))
    else:
        product = caller.checked_product(query["product_id"])
        async with reading(request.app[DB_POOL], query["time_zone"]) as cur:
            items, after = await report_query.run(
                query, lambda asked: report_query.period_items(cur, caller.org.id, product.id, asked)
            )
    return json_response(query_answer(query, items, after))


def query_answer(query: dict[str, Any], items: Any, after: Any) -> dict[str, Any]:
    """A report's page as the API answers it: its `items` and the cursor after them."""
    shaped: dict[str, Any] = QUERY_RESULT.dump(
        {
            "report": query["report"],
            "time_zone": query["time_zone"],
            "week_starts": "monday",
            "granularity": query["granularity"],
            "items": items,
            "next_cursor": after,
        }
    )
    return shaped
