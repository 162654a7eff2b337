"""`aivis analytics overview|query`: the query and body they send, and what they print."""

from __future__ import annotations

import json

from tests.cli.conftest import Aivis, FakeApi, error, ok

PRODUCT_ID = "0b6c9f7e-1111-4222-8333-444455556666"
OVERVIEW = f"/api/v1/products/{PRODUCT_ID}/analytics/overview"
QUERY = "/api/v1/analytics/query"


def proportion(count: int, total: int) -> dict:
    return {"value": count / total if total else None, "count": count, "total": total, "interval": None}


def brand_numbers(mentioning: int, answers: int) -> dict:
    return {
        "visibility": proportion(mentioning, answers),
        "shareOfVoice": {**proportion(mentioning, 4), "basis": "b"},
        "averagePosition": {"value": 1.5, "sum": 3, "count": 2},
        "sentiment": {"value": None, "sum": 0, "count": 0, "labels": {}},
        "citationRate": proportion(0, 0),
    }


def answers(count: int) -> dict:
    return {"answers": count, "citingAnswers": 0, "drawingAnswers": 0, "citations": 0, "competitorSetVersions": [1]}


def test_overview_prints_each_brand_with_its_counts_and_change(run: Aivis, api: FakeApi):
    data = {
        "productId": PRODUCT_ID,
        "timeZone": "Europe/Paris",
        "period": {"from": "2026-11-01", "to": "2026-11-29"},
        "previousPeriod": {"from": "2026-10-04", "to": "2026-11-01"},
        "answers": answers(4),
        "previousAnswers": answers(2),
        "brands": [
            {
                "kind": "brand",
                "competitorId": None,
                "name": "Acme",
                "current": brand_numbers(3, 4),
                "previous": brand_numbers(1, 2),
                "change": {
                    "visibility": 0.25,
                    "shareOfVoice": None,
                    "averagePosition": 0.0,
                    "sentiment": None,
                    "citationRate": None,
                },
            }
        ],
    }
    api.on("GET", OVERVIEW, ok(data))
    result = run(
        "analytics",
        "overview",
        "--product",
        PRODUCT_ID,
        "--from",
        "2026-11-01",
        "--to",
        "2026-11-29",
        "--time-zone",
        "Europe/Paris",
    )
    assert result.exit_code == 0, result.output
    assert dict(api.requests[0].url.params) == {"from": "2026-11-01", "to": "2026-11-29", "timeZone": "Europe/Paris"}
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "[2026-11-01, 2026-11-29) Europe/Paris: 4 answers",
        "before [2026-10-04, 2026-11-01): 2 answers",
    ]
    assert lines[2].split("\t") == ["Acme", "brand", "75.0% (3/4)", "+25.0", "75.0% (3/4)", "-", "1.50 (n=2)", "-", "-"]
    assert json.loads(run("analytics", "overview", "--product", PRODUCT_ID, "--json").stdout) == data


def test_query_sends_the_report_its_filters_and_order_and_prints_a_row_each(run: Aivis, api: FakeApi):
    item = {
        "period": {"from": "2026-11-16", "to": "2026-11-23"},
        "engine": "openai-search",
        "kind": "brand",
        "competitorId": None,
        "name": "Acme",
        "answers": answers(2),
        "metrics": brand_numbers(1, 2),
    }
    data = {
        "report": "engines",
        "timeZone": "UTC",
        "weekStarts": "monday",
        "granularity": "week",
        "items": [item],
        "nextCursor": "next-place",
    }
    api.on("POST", QUERY, ok(data))
    result = run(
        "analytics",
        "query",
        "--product",
        PRODUCT_ID,
        "--report",
        "engines",
        "--from",
        "2026-11-16",
        "--to",
        "2026-11-30",
        "--granularity",
        "week",
        "--filter",
        "engine^=open",
        "--filter",
        "brand!=brand,x",
        "--order-by",
        "-shareOfVoice",
        "--metric",
        "visibility",
        "--limit",
        "1",
    )
    assert result.exit_code == 0, result.output
    assert api.bodies("POST", QUERY) == [
        {
            "report": "engines",
            "productId": PRODUCT_ID,
            "from": "2026-11-16",
            "to": "2026-11-30",
            "granularity": "week",
            "limit": 1,
            "filters": [
                {"field": "engine", "operator": "prefix", "values": ["open"]},
                {"field": "brand", "operator": "not_in", "values": ["brand", "x"]},
            ],
            "orderBy": {"metric": "shareOfVoice", "direction": "desc"},
            "metrics": ["visibility"],
        }
    ]
    assert result.stdout.splitlines()[0].split("\t")[:5] == [
        "2026-11-16",
        "2026-11-23",
        "openai-search",
        "Acme",
        "50.0% (1/2)",
    ]
    assert "--cursor next-place" in result.stderr
    assert (
        json.loads(run("analytics", "query", "--product", PRODUCT_ID, "--from", "a", "--to", "b", "--json").stdout)
        == data
    )


def test_a_refused_query_says_which_field(run: Aivis, api: FakeApi):
    api.on("POST", QUERY, error(422, "VALIDATION_FAILED", "validation failed", {"timeZone": "Not a time zone."}))
    result = run(
        "analytics",
        "query",
        "--product",
        PRODUCT_ID,
        "--from",
        "2026-11-01",
        "--to",
        "2026-11-02",
        "--time-zone",
        "Mars/Olympus",
    )
    assert result.exit_code == 5
    assert "timeZone" in result.stderr and "Not a time zone." in result.stderr


def test_a_filter_without_an_operator_is_a_usage_error(run: Aivis, api: FakeApi):
    result = run("analytics", "query", "--product", PRODUCT_ID, "--from", "a", "--to", "b", "--filter", "engine")
    assert result.exit_code == 2 and "--filter" in result.output
    assert api.requests == []
