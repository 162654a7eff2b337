"""The analytics query's days in a named time zone, its pages by keyset cursor, its filter
operators and the metrics a row carries, through the gateway."""

from __future__ import annotations

from typing import Any

from tests.analytics.conftest import Collector
from tests.analytics.test_query import query, rows, sent


async def test_days_start_at_midnight_in_the_named_zone(collector: Collector):
    # 23:30 UTC on the 18th is the 19th in Paris (UTC+1) and still the 18th in New York (UTC-5).
    for text, at in (("Acme.", "2026-11-18T23:30:00Z"), ("Globex.", "2026-11-18T12:00:00Z")):
        stored = await collector.send(text, answeredAt=at)
        await collector.analysed(stored["id"])
    period = {"from": "2026-11-18", "to": "2026-11-20", "granularity": "day"}
    found = {}
    for zone in ("UTC", "Europe/Paris", "America/New_York"):
        status, answer = await query(collector, timeZone=zone, **period)
        assert status == 200, answer
        assert answer["data"]["timeZone"] == zone
        found[zone] = [(row[0], row[3], row[4], row[5]) for row in rows(answer)]
    assert (
        found["UTC"]
        == found["America/New_York"]
        == [
            ("2026-11-18", "Acme", 1, 2),
            ("2026-11-18", "Globex", 1, 2),
        ]
    )
    assert found["Europe/Paris"] == [
        ("2026-11-18", "Acme", 0, 1),
        ("2026-11-18", "Globex", 1, 1),
        ("2026-11-19", "Acme", 1, 1),
        ("2026-11-19", "Globex", 0, 1),
    ]
    status, overview = await collector.tenant.call(
        "GET",
        f"/api/v1/products/{collector.tenant.product['id']}/analytics/overview",
        params={"from": "2026-11-19", "to": "2026-11-20", "timeZone": "Europe/Paris"},
    )
    assert status == 200, overview
    assert (overview["data"]["timeZone"], overview["data"]["answers"]["answers"]) == ("Europe/Paris", 1)
    assert overview["data"]["previousAnswers"]["answers"] == 1


async def test_pages_follow_the_cursor_to_the_end_in_the_report_order(collector: Collector):
    await sent(collector)
    body: dict[str, Any] = {
        "from": "2026-11-16",
        "to": "2026-11-30",
        "granularity": "day",
        "orderBy": {"metric": "visibility"},
    }
    status, whole = await query(collector, **body)
    assert status == 200 and whole["data"]["nextCursor"] is None, whole
    paged: list[Any] = []
    cursor = None
    while True:
        status, page = await query(collector, limit=2, **body, **({"cursor": cursor} if cursor else {}))
        assert status == 200, page
        assert len(page["data"]["items"]) <= 2
        paged += page["data"]["items"]
        cursor = page["data"]["nextCursor"]
        if cursor is None:
            break
    assert paged == whole["data"]["items"] and len(paged) == 6


async def test_not_in_and_prefix_narrow_before_summing(collector: Collector):
    await sent(collector)
    period = {"from": "2026-11-16", "to": "2026-11-30"}
    not_openai = [{"field": "engine", "operator": "not_in", "values": ["openai-search"]}]
    status, answer = await query(collector, report="engines", filters=not_openai, **period)
    assert status == 200, answer
    assert {row[2] for row in rows(answer)} == {"perplexity-sonar"}
    perplexity = [{"field": "engine", "operator": "prefix", "values": ["perp"]}]
    _, prefixed = await query(collector, report="engines", filters=perplexity, **period)
    assert prefixed["data"]["items"] == answer["data"]["items"]
    competitors = [{"field": "brand", "operator": "not_in", "values": ["brand"]}]
    _, answer = await query(collector, filters=competitors, **period)
    assert [row[3] for row in rows(answer)] == ["Globex"]


async def test_a_row_carries_the_metrics_asked_for(collector: Collector):
    await sent(collector)
    period = {"from": "2026-11-23", "to": "2026-11-30"}
    status, answer = await query(collector, metrics=["shareOfVoice", "visibility"], compareToPrevious=True, **period)
    assert status == 200, answer
    for item in answer["data"]["items"]:
        assert set(item["metrics"]) == {"shareOfVoice", "visibility"}
        assert set(item["previous"]["metrics"]) == {"shareOfVoice", "visibility"}
