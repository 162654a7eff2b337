"""The analytics query's ai_traffic report through the gateway: an App's AI-agent visits and
referrals by period, read from AI traffic's own sums through its internal endpoint, every rate with
its counts; a zone whose midnights are not whole UTC hours, and impossible combinations, are 422s
naming the field."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from libs.contract.parts import ANALYTICS
from tests.conftest import Stack, build_app
from tests.traffic import conftest as traffic_fixtures
from tests.traffic.support import TESTBOT_UA, Tenant, base_url, event
from tests.traffic.test_summary import this_hour

QUERY = "/api/v1/analytics/query"
# AI traffic's fixtures: its service on both stores, and a tenant with an App's domain.
dns, key_directory, traffic = traffic_fixtures.dns, traffic_fixtures.key_directory, traffic_fixtures.traffic
apps_pool, tenant = traffic_fixtures.apps_pool, traffic_fixtures.tenant


@pytest.fixture
async def gateway(stack: Stack, tenant: Tenant) -> AsyncIterator[TestClient]:
    """A gateway whose analytics part reads the traffic service of `tenant`."""
    traffic_url = base_url(tenant.api.server)
    analytics = TestServer(build_app(ANALYTICS, stack.part_environ(ANALYTICS, TRAFFIC_URL=traffic_url)))
    await analytics.start_server()
    client = await stack.start_gateway({"ANALYTICS_URL": base_url(analytics), "TRAFFIC_URL": traffic_url})
    yield client
    await client.close()
    await analytics.close()


async def query(gateway: TestClient, tenant: Tenant, **body: Any) -> tuple[int, Any]:
    async with gateway.post(QUERY, json={"report": "ai_traffic", **body}, headers=tenant.headers) as response:
        return response.status, await response.json()


async def test_an_apps_visits_and_referrals_by_period(gateway: TestClient, tenant: Tenant):
    hour = this_hour()
    at = (hour - timedelta(minutes=50)).isoformat()
    status, body = await tenant.send(
        [
            event(tenant.host, occurredAt=at),
            event(tenant.host, occurredAt=at, status=404, path="/missing"),
            event(tenant.host, occurredAt=at, userAgent=TESTBOT_UA, ip="198.51.100.9", path="/a"),
        ]
    )
    assert (status, body["data"]["accepted"]) == (200, 3)
    day = (hour - timedelta(minutes=50)).date()
    period = {"from": (day - timedelta(days=1)).isoformat(), "to": (day + timedelta(days=1)).isoformat()}
    status, answer = await query(gateway, tenant, appId=tenant.app_id, granularity="day", **period)
    assert status == 200, answer
    rows = answer["data"]["items"]
    assert [(row["period"]["from"], row["traffic"]["visits"]) for row in rows] == [
        ((day - timedelta(days=1)).isoformat(), 0),
        (day.isoformat(), 3),
    ]
    assert rows[1]["appId"] == tenant.app_id
    assert rows[1]["traffic"]["successRate"] | {"interval": None} == {
        "value": 2 / 3,
        "count": 2,
        "total": 3,
        "interval": None,
    }
    assert rows[1]["traffic"]["successRate"]["interval"]["low"] < 2 / 3
    order = {"metric": "visits", "direction": "desc"}
    status, answer = await query(gateway, tenant, granularity="day", orderBy=order, limit=1, **period)
    assert status == 200, answer
    assert [row["traffic"]["visits"] for row in answer["data"]["items"]] == [0]  # each day its own period first
    assert answer["data"]["nextCursor"] is not None


@pytest.mark.parametrize(
    ("body", "details"),
    [
        (
            {"timeZone": "Asia/Kolkata"},
            {"timeZone": "AI traffic is summed by whole UTC hours: pick a zone a whole number of hours from UTC."},
        ),
        (
            {"report": "brands", "appId": "0b6c9f7e-1111-4222-8333-444455556666"},
            {"productId": "Missing data for required field."},
        ),
        (
            {"filters": [{"field": "engine", "operator": "eq", "values": ["x"]}]},
            {"filters": "The ai_traffic report takes no filters: send appId for one App."},
        ),
        ({"orderBy": {"metric": "visibility"}}, {"orderBy.metric": "Not a metric of the ai_traffic report."}),
    ],
)
async def test_a_query_ai_traffic_cannot_answer_is_422(gateway: TestClient, tenant: Tenant, body, details):
    today = datetime.now(UTC).date()
    period = {"from": today.isoformat(), "to": (today + timedelta(days=1)).isoformat()}
    status, answer = await query(gateway, tenant, **period, **body)
    assert (status, answer["details"]) == (422, details)
