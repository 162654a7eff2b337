"""A product's "Visibility" section: its numbers in AI answers, read from the analytics API for the
signed-in person (scope analytics:read) — share of voice and visibility over time, line by brand,
this period against the last, per engine (overview); each tracked prompt's visibility, position and
trend (prompts); the most cited domains and pages, owned ones first, each owned page linked to its
App route (sources); AI agents' visits to the organization's Apps (AI traffic). Every chart is the
one chart component (templates/_chart.html) with a table of the same numbers."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from gateway import product_queries
from gateway.dashboard import api, apps, traffic
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.products import product_of
from gateway.dashboard.render import render
from libs.common.db import cursor
from libs.common.state import DB_POOL

RANGES = {"7": 7, "30": 30, "90": 90}
DEFAULT_RANGE = "30"
SOURCES_TOP = 25
# The prompts table's orders: the column and whether the largest comes first.
SORTS = {"visibility": True, "position": False, "trend": True, "prompt": False}


def percent(metric: dict[str, Any] | None) -> float | None:
    """A proportion's value in percent, one decimal; None when nothing was counted."""
    if metric is None or metric["value"] is None:
        return None
    return round(float(metric["value"]) * 100, 1)


def period_of(request: web.Request) -> tuple[str, date, date]:
    """The range picked (days) and its days `[start, end)`, today included (UTC)."""
    days = request.query.get("days", DEFAULT_RANGE)
    days = days if days in RANGES else DEFAULT_RANGE
    end = date.today() + timedelta(days=1)
    return days, end - timedelta(days=RANGES[days]), end


async def report(request: web.Request, product: Any, start: date, end: date, **body: Any) -> list[dict[str, Any]]:
    """Every row of a report (its pages followed)."""
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        asked = {
            "productId": str(product["id"]),
            "from": start.isoformat(),
            "to": end.isoformat(),
            "limit": 1000,
            **body,
            **({"cursor": cursor} if cursor else {}),
        }
        page = await api.call(request, "analytics_query", json=asked)
        rows += page["items"]
        cursor = page["nextCursor"]
        if cursor is None:
            return rows


def series_by_brand(rows: list[dict[str, Any]], metric: str, days: list[str]) -> dict[str, Any]:
    """The chart's data: a line a brand, a point a day (None where the day had no answer)."""
    values: dict[str, dict[str, float | None]] = {}
    for row in rows:
        values.setdefault(row["name"] or "(unnamed)", {})[row["period"]["from"]] = percent(row["metrics"][metric])
    return {
        "x": days,
        "series": [{"label": name, "values": [by_day.get(day) for day in days]} for name, by_day in values.items()],
    }


async def context_of(request: web.Request) -> tuple[Any, Any, dict[str, Any]]:
    _, membership = await member(request)
    product = await product_of(request, membership)
    await api.require(request, "analytics_overview")
    days, start, end = period_of(request)
    base = {
        "membership": membership,
        "product": product,
        "days": days,
        "ranges": list(RANGES),
        "start": start,
        "end": end,
        "problem": None,
        "sort": None,
    }
    return membership, product, base


async def overview_page(request: web.Request) -> web.Response:
    """GET /{orgSlug}/products/{product}/visibility[?days=7|30|90]."""
    _, product, context = await context_of(request)
    start, end = context["start"], context["end"]
    overview = await api.call(
        request,
        "analytics_overview",
        productId=str(product["id"]),
        query={"from": start.isoformat(), "to": end.isoformat()},
    )
    daily = await report(request, product, start, end, report="brands", granularity="day")
    days = [(start + timedelta(days=n)).isoformat() for n in range((end - start).days)]
    engines = await report(request, product, start, end, report="engines", compareToPrevious=True)
    context.update(
        {
            "overview": overview,
            "engines": engines,
            "share_chart": series_by_brand(daily, "shareOfVoice", days),
            "visibility_chart": series_by_brand(daily, "visibility", days),
        }
    )
    return await render(request, "visibility_overview.html", context)


async def prompts_page(request: web.Request) -> web.Response:
    """GET …/visibility/prompts[?sort=visibility|position|trend|prompt&days=]: the product's brand in
    the answers to each tracked prompt, against the period before."""
    membership, product, context = await context_of(request)
    start, end = context["start"], context["end"]
    rows = await report(
        request,
        product,
        start,
        end,
        report="prompts",
        compareToPrevious=True,
        filters=[{"field": "brand", "operator": "eq", "values": ["brand"]}],
    )
    texts = {
        p["id"]: p["text"]
        for p in (await api.call(request, "prompts_list", productId=str(product["id"]), query={"limit": 200}))["items"]
    }
    prompts = []
    for row in rows:
        now = percent(row["metrics"]["visibility"])
        before = percent(row["previous"]["metrics"]["visibility"]) if row["previous"] else None
        prompts.append(
            {
                "id": row["promptId"],
                "prompt": texts.get(row["promptId"], "Prompts not tracked"),
                "answers": row["answers"]["answers"],
                "visibility": now,
                "mentioning": row["metrics"]["visibility"]["count"],
                "position": row["metrics"]["averagePosition"]["value"],
                "trend": None if now is None or before is None else round(now - before, 1),
            }
        )
    sort = request.query.get("sort", "visibility")
    sort = sort if sort in SORTS else "visibility"
    present = [p for p in prompts if p[sort] is not None]
    present.sort(key=lambda p: p[sort], reverse=SORTS[sort])
    context.update({"prompts": present + [p for p in prompts if p[sort] is None], "sort": sort, "sorts": list(SORTS)})
    return await render(request, "visibility_prompts.html", context)


def owns(hosts: list[str], domain: str) -> bool:
    return any(host == domain or host.endswith("." + domain) or domain.endswith("." + host) for host in hosts)


async def app_routes(request: web.Request, membership: Any) -> dict[tuple[str, str], str]:
    """The dashboard page of each App route, by (hostname, path) of the App's domains."""
    found: dict[tuple[str, str], str] = {}
    for app in await api.call(request, "apps_list"):
        hosts = [d["domain"] for d in await api.call(request, "apps_domains_list", appId=app["id"])]
        if not hosts:
            continue
        routes = (await api.call(request, "apps_routes_list", appId=app["id"], query={"limit": 200}))["routes"]
        for route in routes:
            path = "/" + route["path"].lstrip("/")
            for host in hosts:
                found[host, path] = apps.route_page(request, membership, app["id"], route["id"])
    return found


async def sources_page(request: web.Request) -> web.Response:
    """GET …/visibility/sources: the most cited domains, the product's own first, and its pages."""
    membership, product, context = await context_of(request)
    start, end = context["start"], context["end"]
    # The product's owned domains, from the gateway's own table (the product is the gateway's).
    async with cursor(request.config_dict[DB_POOL]) as cur:
        brand = await product_queries.product_brand(cur, str(membership.organization_id), str(product["id"]))
    hosts: list[str] = list(brand["owned_domains"] or []) if brand else []
    domains = await report(request, product, start, end, report="domains")
    for row in domains:
        row["owned"] = owns(hosts, row["domain"])
    domains.sort(key=lambda row: not row["owned"])
    owned = [row["domain"] for row in domains if row["owned"]]
    pages: list[dict[str, Any]] = []
    if owned:
        filters = [{"field": "domain", "operator": "in", "values": owned[:100]}]
        pages = await report(request, product, start, end, report="urls", filters=filters)
        routes = await app_routes(request, membership) if await api.permits(request, "apps_routes_list") else {}
        for page in pages:
            parts = urlsplit(page["url"])
            page["route"] = routes.get((parts.hostname or "", parts.path or "/"))
    context.update({"domains": domains[:SOURCES_TOP], "pages": pages[:SOURCES_TOP], "owned_hosts": hosts})
    return await render(request, "visibility_sources.html", context)


async def traffic_page(request: web.Request) -> web.Response:
    """GET …/visibility/traffic: AI agents' visits to every App of the organization, by category,
    on the same chart component as the rest, with a link to each App's own traffic page."""
    membership, _, context = await context_of(request)
    start, end = context["start"], context["end"]
    summary = await api.call(
        request,
        "ai_traffic_summary",
        query={
            "from": f"{start.isoformat()}T00:00:00Z",
            "to": f"{end.isoformat()}T00:00:00Z",
            "granularity": "day",
            "groupBy": "category",
        },
    )
    context.update(
        {
            "summary": summary,
            "chart_data": traffic.visits_by_category(summary),
            "apps": await api.call(request, "apps_list"),
        }
    )
    return await render(request, "visibility_traffic.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    base = f"/{ORG}/products/{{product}}/visibility"
    router.add_get(base, overview_page, name="dashboard.visibility")
    router.add_get(base + "/prompts", prompts_page, name="dashboard.visibility_prompts")
    router.add_get(base + "/sources", sources_page, name="dashboard.visibility_sources")
    router.add_get(base + "/traffic", traffic_page, name="dashboard.visibility_traffic")
