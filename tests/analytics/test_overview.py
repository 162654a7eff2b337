"""A product's overview through the gateway: its brand's and competitors' numbers over [from, to)
in UTC days beside the period before, with what each ratio was computed from; failed and refused
answers count nowhere; other organizations and bad periods are refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.analytics.conftest import Collector
from tests.personas.conftest import Tenant

PERIOD = {"from": "2026-11-15", "to": "2026-11-22"}


async def overview(tenant: Tenant, **params: str) -> tuple[int, Any]:
    return await tenant.call("GET", f"/api/v1/products/{tenant.product['id']}/analytics/overview", params=params)


async def send_all(collector: Collector, answers: list[tuple[str, dict[str, Any]]]) -> None:
    for text, fields in answers:
        stored = await collector.send(text, **fields)
        await collector.analysed(stored["id"])


def numbers(brand: dict[str, Any], period: str) -> dict[str, Any]:
    found = brand[period]
    return {
        "visibility": (found["visibility"]["count"], found["visibility"]["total"]),
        "shareOfVoice": (found["shareOfVoice"]["count"], found["shareOfVoice"]["total"]),
        "averagePosition": found["averagePosition"]["value"],
        "citationRate": (found["citationRate"]["count"], found["citationRate"]["total"]),
    }


async def test_the_overview_counts_the_period_and_the_one_before(collector: Collector):
    await send_all(
        collector,
        [
            (
                "1. Globex is the incumbent.\n2. Acme is excellent and fast.",
                {"answeredAt": "2026-11-20T09:00:00Z", "citations": [{"url": "https://acme.com/pricing"}]},
            ),
            ("Acme is great.", {"answeredAt": "2026-11-21T23:59:00Z", "engine": "perplexity-sonar"}),
            ("Notion only.", {"answeredAt": "2026-11-15T00:00:00Z", "citations": [{"url": "https://notion.so/x"}]}),
            ("Acme is great.", {"answeredAt": "2026-11-17T09:00:00Z", "status": "failed"}),
            ("Acme.", {"answeredAt": "2026-11-18T09:00:00Z", "status": "refused"}),
            ("", {"answeredAt": "2026-11-18T09:00:00Z", "status": "empty"}),
            ("Acme, after the period.", {"answeredAt": "2026-11-22T00:00:00Z"}),
            ("Globex, the period before.", {"answeredAt": "2026-11-10T12:00:00Z"}),
        ],
    )
    status, answer = await overview(collector.tenant, **PERIOD)
    assert status == 200, answer
    data = answer["data"]
    assert (data["productId"], data["timeZone"]) == (collector.tenant.product["id"], "UTC")
    assert data["period"] == PERIOD
    assert data["previousPeriod"] == {"from": "2026-11-08", "to": "2026-11-15"}
    assert (data["answers"], data["previousAnswers"]) == (
        {"answers": 3, "citingAnswers": 2, "drawingAnswers": 2, "citations": 2, "competitorSetVersions": [2]},
        {"answers": 1, "citingAnswers": 0, "drawingAnswers": 0, "citations": 0, "competitorSetVersions": [2]},
    )
    brands = {brand["name"]: brand for brand in data["brands"]}
    assert [brand["kind"] for brand in data["brands"]] == ["brand", "competitor", "competitor"]
    assert set(brands) == {"Acme", "Globex", "Notion"}
    assert numbers(brands["Acme"], "current") == {
        "visibility": (2, 3),
        "shareOfVoice": (2, 4),
        "averagePosition": 1.5,
        "citationRate": (1, 2),
    }
    assert numbers(brands["Globex"], "current") == {
        "visibility": (1, 3),
        "shareOfVoice": (1, 4),
        "averagePosition": 1.0,
        "citationRate": (0, 2),
    }
    assert numbers(brands["Notion"], "current") == {
        "visibility": (1, 3),
        "shareOfVoice": (1, 4),
        "averagePosition": 1.0,
        "citationRate": (1, 2),
    }
    assert numbers(brands["Acme"], "previous") == {
        "visibility": (0, 1),
        "shareOfVoice": (0, 1),
        "averagePosition": None,
        "citationRate": (0, 0),
    }
    assert numbers(brands["Globex"], "previous")["visibility"] == (1, 1)
    acme = brands["Acme"]
    assert acme["current"]["visibility"]["value"] == pytest.approx(2 / 3)
    assert acme["current"]["shareOfVoice"]["basis"] == "mentions of every tracked brand"
    interval = acme["current"]["visibility"]["interval"]
    assert interval["low"] < 2 / 3 < interval["high"]
    assert acme["previous"]["citationRate"]["interval"] is None
    assert acme["change"]["visibility"] == pytest.approx(2 / 3)
    assert acme["change"]["averagePosition"] is None
    sentiment = acme["current"]["sentiment"]
    assert sum(sentiment["labels"].values()) == sentiment["count"] == 2
    assert sentiment["labels"]["positive"] == 2 and sentiment["value"] > 0
    assert brands["Globex"]["competitorId"] is not None and acme["competitorId"] is None


async def test_without_answers_every_number_is_empty_and_the_default_is_the_last_30_days(collector: Collector):
    status, answer = await overview(collector.tenant)
    assert status == 200, answer
    end = datetime.now(UTC).date() + timedelta(days=1)
    assert answer["data"]["period"] == {"from": (end - timedelta(days=30)).isoformat(), "to": end.isoformat()}
    acme = answer["data"]["brands"][0]
    assert acme["current"]["visibility"] == {"value": None, "count": 0, "total": 0, "interval": None}
    assert acme["current"]["averagePosition"] == {"value": None, "sum": 0, "count": 0}


@pytest.mark.parametrize(
    ("params", "details"),
    [
        ({"from": "2026-11-15"}, {"from": "Send from and to together, or neither (the last 30 days)."}),
        ({"from": "2026-11-15", "to": "2026-11-15"}, {"to": "Must be after from (the period is [from, to))."}),
        ({"from": "2025-01-01", "to": "2026-01-03"}, {"to": "A period is at most 366 days."}),
        ({"from": "2026-11-15T00:00:00Z", "to": "2026-11-22"}, {"from": "Not a valid date."}),
        ({"from": "2026-11-15", "to": "2026-11-22", "engine": "x"}, {"engine": "Unknown field."}),
    ],
)
async def test_a_bad_period_is_422_naming_the_field(collector: Collector, params: dict[str, str], details):
    status, answer = await overview(collector.tenant, **params)
    assert (status, answer["details"]) == (422, details)


async def test_another_organization_and_a_key_without_the_scope_are_refused(
    collector: Collector, stranger: Collector, identity
):
    await send_all(collector, [("Acme.", {"answeredAt": "2026-11-20T09:00:00Z"})])
    status, _ = await stranger.tenant.call(
        "GET", f"/api/v1/products/{collector.tenant.product['id']}/analytics/overview", params=PERIOD
    )
    assert status == 404
    status, answer = await overview(stranger.tenant, **PERIOD)
    assert (status, answer["data"]["answers"]) == (
        200,
        {
            "answers": 0,
            "citingAnswers": 0,
            "drawingAnswers": 0,
            "citations": 0,
            "competitorSetVersions": [],
        },
    )
    tenant = collector.tenant
    key = await identity.api_key(tenant.org, frozenset({"prompts:read"}))
    status, _ = await overview(Tenant(tenant.gateway, tenant.org, tenant.product, key), **PERIOD)
    assert status == 403
