"""Reports and the overview in named time zones through the gateway, read from the daily rollups
corrected by the hourly ones where the zone's days cut UTC days (and, for the hours a midnight of
the zone splits, from the raw rows): the same answer as the very same report computed from the raw
rows of every hour, and the days the answers were sent on in that zone, across summer time's end
in Paris (2026-10-25) and New York (2026-11-01), and in zones whose offset is not a whole number of
hours."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import aiopg
import pytest

from libs.common.encoding import dumps, loads
from libs.common.schemas import load_data
from services.analytics import overview, report_query, report_views
from services.analytics.brand_sets import BRAND
from services.analytics.report_sources import reading
from tests.analytics.conftest import Collector
from tests.analytics.test_query import query

BRANDS = ("Acme", "Globex", "Notion")
SITES = {
    "Acme": "https://acme.com/pricing",
    "Globex": "https://www.globex.com/compare",
    "Notion": "https://notion.so/x",
}
# Each answer names the brands of its text once and cites their pages; each is sent around a
# midnight of some zone: Paris (22:00 UTC in summer, 23:00 in winter), New York (04:00 UTC in
# summer, 05:00 in winter), Kolkata (+5:30: 18:30 UTC), Kathmandu (+5:45: 18:15 UTC), Adelaide
# (+10:30 in its summer: 13:30 UTC).
ANSWERS = (
    ("Acme.", "openai-search", "2026-10-23T21:30:00Z"),
    ("Globex and Acme.", "perplexity-sonar", "2026-10-23T22:30:00Z"),
    ("Notion.", "openai-search", "2026-10-25T00:30:00Z"),
    ("Acme and Notion.", "openai-search", "2026-10-25T01:30:00Z"),
    ("Globex.", "perplexity-sonar", "2026-10-25T22:30:00Z"),
    ("Acme.", "openai-search", "2026-10-25T23:30:00Z"),
    ("Globex.", "openai-search", "2026-10-27T18:10:00Z"),
    ("Acme and Globex.", "openai-search", "2026-10-27T18:20:00Z"),
    ("Notion.", "perplexity-sonar", "2026-10-27T18:40:00Z"),
    ("Acme.", "perplexity-sonar", "2026-10-29T13:20:00Z"),
    ("Notion and Globex.", "openai-search", "2026-10-29T13:40:00Z"),
    ("Acme.", "openai-search", "2026-11-01T03:30:00Z"),
    ("Globex.", "perplexity-sonar", "2026-11-01T04:30:00Z"),
    ("Acme and Notion.", "openai-search", "2026-11-01T05:30:00Z"),
    ("Notion.", "openai-search", "2026-11-01T06:30:00Z"),
    ("Acme.", "perplexity-sonar", "2026-11-02T04:30:00Z"),
    ("Globex and Notion.", "openai-search", "2026-11-02T05:30:00Z"),
    # The period before the overview's.
    ("Acme.", "openai-search", "2026-10-09T21:45:00Z"),
    ("Globex.", "openai-search", "2026-10-21T12:15:00Z"),
)
PERIOD = {"from": "2026-10-22", "to": "2026-11-04"}
WHOLE_HOURS = ("Europe/Paris", "America/New_York")
FRACTIONAL = ("Asia/Kolkata", "Asia/Kathmandu", "Australia/Adelaide")


@pytest.fixture
async def answered(collector: Collector) -> Collector:
    for text, engine, at in ANSWERS:
        citations = [{"url": url} for brand, url in SITES.items() if brand in text]
        stored = await collector.send(text, engine=engine, answeredAt=at, citations=citations)
        await collector.analysed(stored["id"])
    return collector


def expected_days(zone: str) -> dict[tuple[str, str], dict[str, int]]:
    """Each (day in `zone`, engine) of the period with its answers and each brand's mentions, from
    the answers as sent."""
    found: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(("answers", *BRANDS), 0))
    for text, engine, at in ANSWERS:
        day = datetime.fromisoformat(at).astimezone(ZoneInfo(zone)).date().isoformat()
        if PERIOD["from"] <= day < PERIOD["to"]:
            counts = found[day, engine]
            counts["answers"] += 1
            for brand in BRANDS:
                counts[brand] += brand in text
    return dict(found)


def days_of(answer: Any) -> dict[tuple[str, str], dict[str, int]]:
    """The same counts, as the `engines` report by day answered them."""
    found: dict[tuple[str, str], dict[str, int]] = {}
    for item in answer["data"]["items"]:
        counts = found.setdefault((item["period"]["from"], item["engine"]), {"answers": item["answers"]["answers"]})
        assert item["metrics"]["visibility"]["count"] == item["metrics"]["shareOfVoice"]["count"]
        counts[item["name"]] = item["metrics"]["visibility"]["count"]
    return found


async def raw_report(pool: aiopg.Pool, collector: Collector, body: dict[str, Any]) -> Any:
    """The report `body` computed in-process from the raw rows of every hour, as the API shapes it."""
    tenant = collector.tenant
    asked = load_data(report_views.ANALYTICS_QUERY, {"productId": tenant.product["id"], **body})
    async with reading(pool, asked["time_zone"]) as cur:
        items, after = await report_query.run(
            asked, lambda one: report_query.period_items(cur, tenant.org.id, tenant.product["id"], one, raw=True)
        )
    return loads(dumps(report_views.query_answer(asked, items, after)))


async def raw_overview(pool: aiopg.Pool, collector: Collector, zone: str, listed: Any) -> Any:
    """The overview computed in-process from the raw rows of every hour, for the brands `listed`."""
    tenant = collector.tenant
    asked = load_data(report_views.OVERVIEW_QUERY, {**PERIOD, "timeZone": zone})
    start, end = asked["from_"], asked["to"]
    async with reading(pool, zone) as cur:
        answer_rows, brand_rows, _ = await overview.read(
            cur, tenant.org.id, tenant.product["id"], start, end, zone, raw=True
        )
    tracked = [(brand["competitorId"] or BRAND, brand["name"]) for brand in listed["brands"]]
    shaped = report_views.overview_answer(tenant.product["id"], zone, start, end, tracked, answer_rows, brand_rows)
    return loads(dumps(shaped))


@pytest.mark.parametrize("zone", WHOLE_HOURS + FRACTIONAL)
async def test_a_daily_report_in_a_zone_counts_its_days_as_the_raw_rows_do(
    answered: Collector, analytics_pool: aiopg.Pool, zone: str
):
    body = {"report": "engines", "timeZone": zone, "granularity": "day", **PERIOD}
    status, answer = await query(answered, **body)
    assert status == 200, answer
    assert answer["data"]["timeZone"] == zone and answer["data"]["nextCursor"] is None
    assert days_of(answer) == expected_days(zone)
    assert answer["data"] == await raw_report(analytics_pool, answered, body)


@pytest.mark.parametrize("zone", ("Europe/Paris", "America/New_York", "Asia/Kolkata"))
async def test_the_domains_by_day_in_a_zone_are_the_raw_rows_domains(
    answered: Collector, analytics_pool: aiopg.Pool, zone: str
):
    body = {"report": "domains", "timeZone": zone, "granularity": "day", **PERIOD}
    status, answer = await query(answered, **body)
    assert status == 200, answer
    cited = {(item["period"]["from"], item["domain"]) for item in answer["data"]["items"]}
    days = [
        datetime.fromisoformat(at).astimezone(ZoneInfo(zone)).date().isoformat()
        for text, _, at in ANSWERS
        if "Acme" in text
    ]
    assert {(day, "acme.com") for day in days if PERIOD["from"] <= day < PERIOD["to"]} == {
        (day, domain) for day, domain in cited if domain == "acme.com"
    }
    assert answer["data"] == await raw_report(analytics_pool, answered, body)


async def test_summer_times_end_and_split_hours_fall_on_their_days(answered: Collector):
    # Paris's 25 October is 25 hours long (02:00-03:00 twice), New York's 1 November too; Kolkata's
    # 28 October starts at 18:30 UTC on the 27th, between two answers of the same UTC hour.
    found = {}
    for zone in ("Europe/Paris", "America/New_York", "Asia/Kolkata"):
        status, answer = await query(answered, report="engines", timeZone=zone, granularity="day", **PERIOD)
        assert status == 200, answer
        found[zone] = days_of(answer)
    assert found["Europe/Paris"]["2026-10-25", "openai-search"] == {"answers": 2, "Acme": 1, "Globex": 0, "Notion": 2}
    assert found["Europe/Paris"]["2026-10-26", "openai-search"]["answers"] == 1
    assert found["America/New_York"]["2026-11-01", "openai-search"] == {
        "answers": 2,
        "Acme": 1,
        "Globex": 0,
        "Notion": 2,
    }
    assert found["America/New_York"]["2026-10-31", "openai-search"]["answers"] == 1
    assert found["Asia/Kolkata"]["2026-10-27", "openai-search"] == {"answers": 2, "Acme": 1, "Globex": 2, "Notion": 0}
    assert found["Asia/Kolkata"]["2026-10-28", "perplexity-sonar"]["answers"] == 1


@pytest.mark.parametrize("zone", WHOLE_HOURS + ("Asia/Kolkata",))
async def test_the_overview_in_a_zone_is_the_raw_rows_overview(
    answered: Collector, analytics_pool: aiopg.Pool, zone: str
):
    status, answer = await answered.tenant.call(
        "GET",
        f"/api/v1/products/{answered.tenant.product['id']}/analytics/overview",
        params={**PERIOD, "timeZone": zone},
    )
    assert status == 200, answer
    data = answer["data"]
    assert (data["timeZone"], data["period"]) == (zone, PERIOD)
    assert data["answers"]["answers"] == sum(counts["answers"] for counts in expected_days(zone).values())
    assert data["previousAnswers"]["answers"] == 2
    assert [brand["name"] for brand in data["brands"]] == list(BRANDS)
    assert data == await raw_overview(analytics_pool, answered, zone, data)


async def test_weeks_and_months_in_a_zone_sum_its_days(answered: Collector, analytics_pool: aiopg.Pool):
    for granularity in ("week", "month"):
        body = {"report": "brands", "timeZone": "America/New_York", "granularity": granularity, **PERIOD}
        status, answer = await query(answered, **body)
        assert status == 200, answer
        assert answer["data"] == await raw_report(analytics_pool, answered, body)
    months = {item["period"]["from"]: item["answers"]["answers"] for item in answer["data"]["items"]}
    new_york = expected_days("America/New_York")
    october = sum(counts["answers"] for (day, _), counts in new_york.items() if day < "2026-11-01")
    assert months == {"2026-10-22": october, "2026-11-01": 17 - october}
