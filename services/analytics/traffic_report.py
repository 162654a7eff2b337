"""The ai_traffic report: AI agents' visits to the organization's Apps (or one App) and the visitors
answer engines referred, by period in the report's time zone. AI traffic owns those rows
(services/traffic): each period's numbers are the summary it answers for that period's hours,
through its internal endpoint, rates with their counts as every ratio here."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, timedelta
from typing import Any

from libs.common.clients import TrafficClient
from libs.common.errors import ValidationFailed
from libs.common.internal_token import Caller
from libs.common.ratios import ratio
from services.analytics import metrics
from services.analytics.report_query import bucket_end
from services.analytics.report_sources import instant

# Periods asked of AI traffic at once.
CONCURRENCY = 8
# AI traffic's own periods (it sums whole UTC hours): the longest it sums in one answer.
WHOLE = "week"


def bucket_start(day: date, granularity: str | None, start: date) -> date:
    if granularity == "week":
        return day - timedelta(days=day.weekday())
    if granularity == "month":
        return day.replace(day=1)
    return day if granularity == "day" else start


def periods(query: dict[str, Any]) -> list[tuple[date, date]]:
    """The report's periods: `[from, to)` cut by day, week (from Monday) or month, clipped to it."""
    found = []
    start, end, granularity = query["from_"], query["to"], query["granularity"]
    bucket = bucket_start(start, granularity, start)
    while bucket < end:
        stop = bucket_end(bucket, granularity, end)
        found.append((max(bucket, start), stop))
        bucket = stop
    return found


def numbers(summary: dict[str, Any]) -> dict[str, Any]:
    """A period's numbers from AI traffic's summary of it."""
    totals, referred = summary["totals"], summary["referrals"]
    referrals = sum(item["referrals"] for item in referred)
    # An operator's crawls are counted once, however many of its answer engines referred.
    crawls = sum({item["operator"]: item["crawls"] for item in referred}.values())
    return {
        "visits": totals["visits"],
        "verified_visits": totals["verifiedVisits"],
        "success_rate": metrics.proportion(totals["successRate"]["count"], totals["successRate"]["total"]),
        "failure_rate": metrics.proportion(totals["failureRate"]["count"], totals["failureRate"]["total"]),
        "bytes": totals["bytes"],
        "referrals": referrals,
        "crawl_to_refer": ratio(crawls, referrals),
    }


async def items(client: TrafficClient, caller: Caller, query: dict[str, Any]) -> list[dict[str, Any]]:
    """A row a period, read from AI traffic; a zone whose midnights are not whole UTC hours is refused
    (AI traffic sums whole UTC hours)."""
    zone, gate = query["time_zone"], asyncio.Semaphore(CONCURRENCY)

    async def row(start: date, end: date) -> dict[str, Any]:
        since, until = (instant(day, zone).astimezone(UTC) for day in (start, end))
        if since.minute or until.minute:
            problem = "AI traffic is summed by whole UTC hours: pick a zone a whole number of hours from UTC."
            raise ValidationFailed(details={"timeZone": problem})
        asked = [("from", since.isoformat()), ("to", until.isoformat()), ("granularity", WHOLE)]
        if query.get("app_id"):
            asked.append(("appId", query["app_id"]))
        async with gate:
            summary = await client.summary(caller, asked)
        return {"period": {"from_": start, "to": end}, "app_id": query.get("app_id"), "traffic": numbers(summary)}

    return list(await asyncio.gather(*(row(start, end) for start, end in periods(query))))
