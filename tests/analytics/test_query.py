"""The analytics query through the gateway: brands by day, week (from Monday) and month, per
engine, filtered before summing, each ratio with its counts; bad bodies are 422s naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from services.analytics import report_query
from tests.analytics.conftest import Collector


async def query(collector: Collector, **body: Any) -> tuple[int, Any]:
    return await collector.tenant.call(
        "POST",
        "/api/v1/analytics/query",
        json={"report": "brands", "productId": collector.tenant.product["id"], **body},
    )


async def sent(collector: Collector) -> None:
    answers = [
        # Wednesday 2026-11-18 and Friday 2026-11-20: the week of Monday 2026-11-16.
        ("Acme is great.", {"answeredAt": "2026-11-18T10:00:00Z"}),
        ("Globex, then Acme.", {"answeredAt": "2026-11-20T10:00:00Z", "engine": "perplexity-sonar"}),
        # Monday 2026-11-23: the next week.
        ("Globex only.", {"answeredAt": "2026-11-23T10:00:00Z"}),
        ("Acme.", {"answeredAt": "2026-11-23T11:00:00Z", "status": "refused"}),
    ]
    for text, fields in answers:
        stored = await collector.send(text, **fields)
        await collector.analysed(stored["id"])


def rows(answer: Any) -> list[tuple[Any, ...]]:
    return [
        (
            item["period"]["from"],
            item["period"]["to"],
            item.get("engine"),
            item["name"],
            item["metrics"]["visibility"]["count"],
            item["metrics"]["visibility"]["total"],
            item["metrics"]["shareOfVoice"]["count"],
            item["metrics"]["shareOfVoice"]["total"],
        )
        for item in answer["data"]["items"]
    ]


async def test_brands_by_week_from_monday_clipped_to_the_period(collector: Collector):
    await sent(collector)
    status, answer = await query(collector, **{"from": "2026-11-17", "to": "2026-11-24"}, granularity="week")
    assert status == 200, answer
    assert (answer["data"]["timeZone"], answer["data"]["weekStarts"]) == ("UTC", "monday")
    assert rows(answer) == [
        ("2026-11-17", "2026-11-23", None, "Acme", 2, 2, 2, 3),
        ("2026-11-17", "2026-11-23", None, "Globex", 1, 2, 1, 3),
        ("2026-11-23", "2026-11-24", None, "Acme", 0, 1, 0, 1),
        ("2026-11-23", "2026-11-24", None, "Globex", 1, 1, 1, 1),
    ]
    first = answer["data"]["items"][0]
    assert first["answers"]["competitorSetVersions"] == [2] and first["kind"] == "brand"
    assert first["metrics"]["averagePosition"] == {"value": 1.5, "sum": 3, "count": 2}


async def test_engines_and_filters_narrow_before_summing(collector: Collector):
    await sent(collector)
    period = {"from": "2026-11-16", "to": "2026-11-30"}
    status, answer = await query(collector, report="engines", **period)
    assert status == 200, answer
    assert [row[2:] for row in rows(answer)] == [
        ("openai-search", "Acme", 1, 2, 1, 2),
        ("openai-search", "Globex", 1, 2, 1, 2),
        ("perplexity-sonar", "Acme", 1, 1, 1, 2),
        ("perplexity-sonar", "Globex", 1, 1, 1, 2),
    ]
    filters = [
        {"field": "engine", "operator": "eq", "values": ["openai-search"]},
        {"field": "brand", "operator": "in", "values": ["brand"]},
    ]
    status, answer = await query(collector, granularity="day", filters=filters, **period)
    assert status == 200, answer
    assert rows(answer) == [
        ("2026-11-18", "2026-11-19", None, "Acme", 1, 1, 1, 1),
        ("2026-11-23", "2026-11-24", None, "Acme", 0, 1, 0, 1),
    ]
    status, answer = await query(collector, compareToPrevious=True, **{"from": "2026-11-21", "to": "2026-11-24"})
    assert status == 200, answer
    compared = [
        (
            item["name"],
            item["metrics"]["visibility"]["count"],
            item["metrics"]["visibility"]["total"],
            item["previous"]["period"],
            item["previous"]["metrics"]["visibility"]["count"],
            item["previous"]["metrics"]["visibility"]["total"],
        )
        for item in answer["data"]["items"]
    ]
    previous = {"from": "2026-11-18", "to": "2026-11-21"}
    assert compared == [("Acme", 0, 1, previous, 2, 2), ("Globex", 1, 1, previous, 1, 2)]
    status, answer = await query(collector, granularity="month", **period)
    assert [row[:2] for row in rows(answer)] == [("2026-11-16", "2026-11-30")] * 2


async def test_having_keeps_rows_after_summing_and_order_by_orders_each_period(collector: Collector):
    await sent(collector)
    period = {"from": "2026-11-16", "to": "2026-11-30"}
    having = [{"metric": "visibility", "operator": "gte", "value": 0.5}]
    status, answer = await query(collector, granularity="week", having=having, **period)
    assert status == 200, answer
    assert [row[:4] for row in rows(answer)] == [
        ("2026-11-16", "2026-11-23", None, "Acme"),
        ("2026-11-16", "2026-11-23", None, "Globex"),
        ("2026-11-23", "2026-11-30", None, "Globex"),
    ]
    order = {"metric": "shareOfVoice", "direction": "asc"}
    status, answer = await query(collector, granularity="week", orderBy=order, **period)
    assert [(row[0], row[3]) for row in rows(answer)] == [
        ("2026-11-16", "Globex"),
        ("2026-11-16", "Acme"),
        ("2026-11-23", "Acme"),
        ("2026-11-23", "Globex"),
    ]


async def test_a_report_over_its_row_limit_is_422(collector: Collector, monkeypatch: pytest.MonkeyPatch):
    await sent(collector)
    monkeypatch.setattr(report_query, "ROWS_MAX", 3)
    status, answer = await query(collector, granularity="week", **{"from": "2026-11-16", "to": "2026-11-30"})
    assert (status, answer["details"]) == (
        422,
        {
            "granularity": "The report has 4 rows, over 3: use a coarser granularity, a shorter period or filters.",
        },
    )
    status, answer = await query(collector, **{"from": "2026-11-16", "to": "2026-11-30"})
    assert status == 200, answer


async def test_prompts_split_the_brands_by_tracked_prompt(collector: Collector):
    tenant = collector.tenant
    _, prompt = await tenant.call("POST", f"/api/v1/products/{tenant.product['id']}/prompts", json={"text": "Best BI?"})
    tracked = prompt["data"]["id"]
    for text, fields in (("Acme.", {"prompt": None, "promptId": tracked}), ("Globex.", {})):
        stored = await collector.send(text, answeredAt="2026-11-18T10:00:00Z", **fields)
        await collector.analysed(stored["id"])
    status, answer = await query(collector, report="prompts", **{"from": "2026-11-16", "to": "2026-11-23"})
    assert status == 200, answer
    found = [
        (item["promptId"], item["name"], item["metrics"]["visibility"]["count"], item["metrics"]["visibility"]["total"])
        for item in answer["data"]["items"]
    ]
    assert found == [(tracked, "Acme", 1, 1), (tracked, "Globex", 0, 1), (None, "Acme", 0, 1), (None, "Globex", 1, 1)]


async def test_domains_are_ranked_by_citations_and_drill_down_to_their_pages(collector: Collector):
    week = {"from": "2026-11-16", "to": "2026-11-23"}
    pages = [
        ("Acme.", ["https://acme.com/a", "https://acme.com/b"], ["https://news.example.co.uk/x"]),
        ("Globex.", ["https://globex.com/a"], ["https://acme.com/c"]),
        ("Nothing cited.", [], []),
        ("Refused.", ["https://globex.com/z"], []),
    ]
    for index, (text, cited, retrieved) in enumerate(pages):
        stored = await collector.send(
            text,
            answeredAt="2026-11-18T10:00:00Z",
            status="refused" if index == 3 else "completed",
            citations=[{"url": url} for url in cited],
            sources=[{"url": url} for url in retrieved],
        )
        await collector.analysed(stored["id"])
    status, answer = await query(collector, report="domains", **week)
    assert status == 200, answer
    found = [
        (
            item["domain"],
            *(
                tuple(item["domainMetrics"][name][key] for key in ("count", "total"))
                for name in ("citationRate", "retrievedShare", "citationShare")
            ),
        )
        for item in answer["data"]["items"]
    ]
    assert found == [
        ("acme.com", (1, 2), (2, 2), (2, 3)),
        ("globex.com", (1, 2), (1, 2), (1, 3)),
        ("example.co.uk", (0, 2), (1, 2), (0, 3)),
    ]
    assert answer["data"]["items"][0]["answers"]["answers"] == 3
    status, answer = await query(collector, report="domains", limit=1, **week)
    assert [item["domain"] for item in answer["data"]["items"]] == ["acme.com"] and answer["data"]["nextCursor"]
    filters = [{"field": "domain", "operator": "in", "values": ["globex.com", "example.co.uk"]}]
    status, answer = await query(collector, report="domains", filters=filters, **week)
    assert [(item["domain"], item["domainMetrics"]["citationShare"]["total"]) for item in answer["data"]["items"]] == [
        ("globex.com", 3),
        ("example.co.uk", 3),
    ]
    urls = [{"field": "domain", "operator": "eq", "values": ["acme.com"]}]
    status, answer = await query(collector, report="urls", filters=urls, **week)
    assert status == 200, answer
    assert [
        (
            item["url"],
            item["domain"],
            item["domainMetrics"]["citationShare"]["count"],
            item["domainMetrics"]["citationShare"]["total"],
            item["domainMetrics"]["retrievedShare"]["count"],
        )
        for item in answer["data"]["items"]
    ] == [
        ("https://acme.com/a", "acme.com", 1, 3, 1),
        ("https://acme.com/b", "acme.com", 1, 3, 1),
        ("https://acme.com/c", "acme.com", 0, 3, 1),
    ]


async def test_the_query_and_the_overview_agree(collector: Collector):
    await sent(collector)
    period = {"from": "2026-11-16", "to": "2026-11-30"}
    _, listed = await query(collector, **period)
    _, overview = await collector.tenant.call(
        "GET", f"/api/v1/products/{collector.tenant.product['id']}/analytics/overview", params=period
    )
    by_name = {brand["name"]: brand["current"] for brand in overview["data"]["brands"]}
    assert [item["name"] for item in listed["data"]["items"]] == ["Acme", "Globex"]
    for item in listed["data"]["items"]:
        assert item["metrics"] == by_name[item["name"]]
    assert listed["data"]["items"][0]["answers"] == overview["data"]["answers"]


async def test_another_organizations_product_is_not_read(collector: Collector, stranger: Collector):
    body = {"report": "brands", "productId": collector.tenant.product["id"], "from": "2026-11-01", "to": "2026-11-30"}
    status, _ = await stranger.tenant.call("POST", "/api/v1/analytics/query", json=body)
    assert status == 404


@pytest.mark.parametrize(
    ("body", "details"),
    [
        (
            {"report": "sources"},
            {"report": "Must be one of: brands, engines, prompts, topics, domains, urls, ai_traffic."},
        ),
        (
            {"report": "domains", "filters": [{"field": "brand", "operator": "eq", "values": ["brand"]}]},
            {"filters": "brand filters the brand reports, not domains."},
        ),
        (
            {"filters": [{"field": "domain", "operator": "eq", "values": ["acme.com"]}]},
            {"filters": "domain filters the domains and urls reports only."},
        ),
        ({"report": "urls"}, {"filters": "The urls report drills down into domains: filter by domain."}),
        (
            {"report": "domains", "limit": 0},
            {"limit": "Must be greater than or equal to 1 and less than or equal to 1000."},
        ),
        ({"to": "2027-11-03"}, {"to": "A period is at most 366 days."}),
        ({"granularity": "hour"}, {"granularity": "Must be one of: day, week, month."}),
        (
            {"having": [{"metric": "citationShare", "operator": "gt", "value": 0}]},
            {"having.0.metric": "Not a metric of the brands report."},
        ),
        (
            {"report": "domains", "orderBy": {"metric": "visibility"}},
            {"orderBy.metric": "Not a metric of the domains report."},
        ),
        (
            {"granularity": "day", "compareToPrevious": True},
            {"compareToPrevious": "Compare whole periods: leave granularity out to compare."},
        ),
        ({"timeZone": "Mars/Olympus"}, {"timeZone": "Not a time zone: an IANA name such as Europe/Paris, or UTC."}),
        (
            {"filters": [{"field": "promptId", "operator": "prefix", "values": ["a"]}]},
            {"filters.0.operator": "prefix applies to engine and domain only."},
        ),
        ({"metrics": ["citationShare"]}, {"metrics.0": "Not a metric of the brands report."}),
        ({"cursor": "bm90LWEtcGxhY2U"}, {"cursor": "Not a cursor of this report: send nextCursor as a page gave it."}),
        ({"metric": "x"}, {"metric": "Unknown field."}),
        (
            {"filters": [{"field": "country", "operator": "eq", "values": ["x"]}]},
            {"filters.0.field": "Must be one of: engine, promptId, topicId, competitorSetVersion, brand, domain."},
        ),
        (
            {"filters": [{"field": "engine", "operator": "eq", "values": ["a", "b"]}]},
            {"filters.0.values": "eq takes exactly one value; in takes several."},
        ),
        (
            {"filters": [{"field": "promptId", "operator": "in", "values": ["nope"]}]},
            {"filters.0.values": "Not a valid UUID."},
        ),
    ],
)
async def test_a_bad_query_is_422_naming_the_field(collector: Collector, body: dict[str, Any], details):
    status, answer = await query(collector, **{"from": "2026-11-01", "to": "2026-11-30", **body})
    assert (status, answer["details"]) == (422, details)
