"""`aivis traffic logs` and `aivis traffic summary`."""

from __future__ import annotations

import json

from tests.cli.conftest import Aivis, FakeApi, error, ok

LOGS = "/api/v1/ai-traffic/logs"
SUMMARY = "/api/v1/ai-traffic/summary"
ENTRY = {
    "id": "evt-1",
    "occurredAt": "2026-11-28T10:00:00+00:00",
    "botId": "gptbot",
    "verified": True,
    "matchedBy": "ip",
    "status": 200,
    "host": "docs.example.com",
    "path": "/llms.txt",
}


def ratio(count: int, total: int) -> dict:
    return {"value": count / total if total else None, "count": count, "total": total}


def metrics(visits: int, failures: int) -> dict:
    return {
        "visits": visits,
        "verifiedVisits": visits - 1,
        "successRate": ratio(visits - failures, visits),
        "failureRate": ratio(failures, visits),
        "bytes": 100 * visits,
    }


def test_logs_send_the_filters_and_print_a_row_each(run: Aivis, api: FakeApi):
    api.on("GET", LOGS, ok({"items": [ENTRY], "nextCursor": "abc"}))
    result = run(
        "traffic", "logs", "--bot", "gptbot", "--verified", "--status-class", "2xx", "--since", "2026-11-27T00:00:00Z"
    )
    assert result.exit_code == 0, result.output
    assert dict(api.requests[0].url.params) == {
        "botId": "gptbot",
        "verified": "true",
        "statusClass": "2xx",
        "from": "2026-11-27T00:00:00Z",
    }
    assert result.stdout.splitlines()[0].split("\t")[1:] == [
        "gptbot",
        "yes",
        "ip",
        "200",
        "docs.example.com",
        "/llms.txt",
    ]
    assert "--cursor abc" in result.stderr


def test_summary_prints_totals_groups_and_rates_with_their_counts(run: Aivis, api: FakeApi):
    data = {
        "appId": None,
        "groupBy": "bot",
        "period": {
            "from": "2026-11-21T11:00:00+00:00",
            "to": "2026-11-28T11:00:00+00:00",
            "bounds": "[from, to)",
            "timeZone": "UTC",
            "granularity": "day",
            "weekStarts": "monday",
        },
        "totals": {**metrics(40, 1), "distinctPaths": 12, "spoofedVisits": 2},
        "groups": [{"key": "gptbot", **metrics(40, 1)}],
        "series": [],
        "referrals": [
            {
                "platform": "chatgpt",
                "name": "ChatGPT",
                "operator": "OpenAI",
                "referrals": 4,
                "crawls": 40,
                "crawlToRefer": ratio(40, 4),
            }
        ],
    }
    api.on("GET", SUMMARY, ok(data))
    result = run("traffic", "summary", "--group-by", "bot")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "[2026-11-21T11:00:00+00:00, 2026-11-28T11:00:00+00:00) UTC"
    assert lines[1] == "visits 40, verified 39, success 97.5% (39/40), failure 2.5% (1/40), spoofed 2, paths 12"
    assert lines[2].split("\t") == ["gptbot", "40", "39", "97.5% (39/40)", "2.5% (1/40)", "4000"]
    assert lines[3] == "ChatGPT: 4 referred, 40 crawls, crawl-to-refer 10.0"
    assert json.loads(run("traffic", "summary", "--json").stdout)["totals"]["visits"] == 40


def test_a_refused_period_says_why(run: Aivis, api: FakeApi):
    api.on(
        "GET",
        SUMMARY,
        error(
            422,
            "VALIDATION_FAILED",
            "validation failed",
            {"from": "Must be a whole UTC hour, such as 2026-11-28T14:00:00Z."},
        ),
    )
    result = run("traffic", "summary", "--from", "2026-11-28T14:30:00Z")
    assert result.exit_code == 5
    assert "Must be a whole UTC hour" in result.stderr
