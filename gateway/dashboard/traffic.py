"""/{orgSlug}/apps/{appId}/traffic: an App's AI traffic — visits over time by category (the chart
component, templates/_chart.html), top agents, top paths, failures, verified against claimed —
read from `GET /api/v1/ai-traffic/summary` for the signed-in person (scope analytics:read)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from gateway.dashboard import api
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import render

RANGES = {"7": 7, "14": 14, "30": 30}
DEFAULT_RANGE = "14"
TOP = 10
CATEGORY_LABELS = {
    "training": "Training",
    "search": "Search",
    "user_fetch": "User fetch",
    "agent": "Agent",
    "dataset": "Dataset",
    "other": "Other",
}


def visits_by_category(summary: dict[str, Any]) -> dict[str, Any]:
    """The chart's data: one series a category, a value a period (0 where none came)."""
    categories = [group["key"] for group in summary["groups"]]
    series = [
        {
            "label": CATEGORY_LABELS.get(key, key),
            "values": [
                next((g["visits"] for g in point["groups"] if g["key"] == key), 0) for point in summary["series"]
            ],
        }
        for key in categories
    ]
    return {"x": [point["start"] for point in summary["series"]], "series": series}


async def app_traffic(request: web.Request) -> web.Response:
    """GET …/apps/{appId}/traffic[?days=7|14|30]."""
    _, membership = await member(request)
    await api.require(request, "ai_traffic_summary")
    app = await api.call(request, "apps_get", appId=request.match_info["app"])
    days = request.query.get("days", DEFAULT_RANGE)
    days = days if days in RANGES else DEFAULT_RANGE
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    start = (end - timedelta(days=RANGES[days])).replace(hour=0)
    base = {"appId": app["id"], "from": start.isoformat(), "to": end.isoformat(), "granularity": "day"}

    async def summary(group_by: str) -> dict[str, Any]:
        found: dict[str, Any] = await api.call(request, "ai_traffic_summary", query={**base, "groupBy": group_by})
        return found

    by_category = await summary("category")
    context = {
        "membership": membership,
        "app": app,
        "days": days,
        "ranges": list(RANGES),
        "summary": by_category,
        "chart_data": visits_by_category(by_category),
        "bots": (await summary("bot"))["groups"][:TOP],
        "paths": (await summary("path"))["groups"][:TOP],
        "statuses": (await summary("statusClass"))["groups"],
        "verification": {g["key"]: g["visits"] for g in (await summary("verified"))["groups"]},
    }
    return await render(request, "app_traffic.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get(f"/{ORG}/apps/{{app}}/traffic", app_traffic, name="dashboard.app_traffic")
