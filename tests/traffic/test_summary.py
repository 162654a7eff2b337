"""GET /api/v1/ai-traffic/summary through the gateway: sums from the hourly rollups, every rate with
its count and total, closed-open UTC periods."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from tests.traffic.support import BROWSER_UA, TESTBOT_UA, Tenant, event

SUMMARY = "/api/v1/ai-traffic/summary"


def this_hour() -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


async def traffic_of_two_hours(tenant: Tenant, hour: datetime) -> None:
    two, one = (hour - timedelta(hours=2, minutes=-10)).isoformat(), (hour - timedelta(hours=1, minutes=-5)).isoformat()
    status, body = await tenant.send(
        [
            event(tenant.host, occurredAt=two),
            event(tenant.host, occurredAt=two),
            event(tenant.host, occurredAt=two, status=404, path="/missing"),
            event(tenant.host, occurredAt=one, userAgent=TESTBOT_UA, ip="198.51.100.9", path="/a"),
            event(tenant.host, occurredAt=one, userAgent=TESTBOT_UA, ip="192.0.2.200", path="/spoofed"),
            event(tenant.host, occurredAt=one, userAgent=BROWSER_UA, referer="https://chatgpt.com/"),
        ]
    )
    assert (status, body["data"]["accepted"]) == (200, 6)


def window(hour: datetime, **extra: str) -> dict[str, str]:
    return {"from": (hour - timedelta(hours=3)).isoformat(), "to": (hour + timedelta(hours=1)).isoformat(), **extra}


async def test_totals_rates_and_referrals(tenant: Tenant):
    hour = this_hour()
    await traffic_of_two_hours(tenant, hour)
    status, body = await tenant.get(SUMMARY, **window(hour, granularity="hour"))
    assert status == 200
    data = body["data"]
    assert data["totals"] == {
        "visits": 4,
        "verifiedVisits": 4,
        "bytes": 4800,
        "distinctPaths": 3,
        "spoofedVisits": 1,
        "successRate": {"value": 0.75, "count": 3, "total": 4},
        "failureRate": {"value": 0.25, "count": 1, "total": 4},
    }
    assert data["referrals"] == [
        {
            "platform": "chatgpt",
            "name": "ChatGPT",
            "operator": "OpenAI",
            "referrals": 1,
            "crawls": 3,
            "crawlToRefer": {"value": 3.0, "count": 3, "total": 1},
        }
    ]
    assert data["period"] == {
        **window(hour),
        "bounds": "[from, to)",
        "timeZone": "UTC",
        "granularity": "hour",
        "weekStarts": "monday",
    }


async def test_the_series_has_every_period_of_the_range(tenant: Tenant):
    hour = this_hour()
    await traffic_of_two_hours(tenant, hour)
    status, body = await tenant.get(SUMMARY, **window(hour, granularity="hour", groupBy="category"))
    series = body["data"]["series"]
    assert status == 200
    assert [(p["start"], p["visits"]) for p in series] == [
        ((hour - timedelta(hours=n)).isoformat(), visits) for n, visits in ((3, 0), (2, 3), (1, 1), (0, 0))
    ]
    assert [(g["key"], g["visits"]) for g in series[1]["groups"]] == [("training", 3)]
    assert [(g["key"], g["visits"], g["verifiedVisits"]) for g in body["data"]["groups"]] == [
        ("training", 3, 3),
        ("search", 1, 1),
    ]


async def test_grouped_by_path_bot_and_status(tenant: Tenant):
    hour = this_hour()
    await traffic_of_two_hours(tenant, hour)

    async def groups(group_by: str) -> list[tuple[str, int]]:
        status, body = await tenant.get(SUMMARY, **window(hour, groupBy=group_by))
        assert status == 200
        return [(g["key"], g["visits"]) for g in body["data"]["groups"]]

    assert await groups("path") == [("/llms.txt", 2), ("/a", 1), ("/missing", 1)]
    assert await groups("bot") == [("gptbot", 3), ("testbot", 1)]
    assert await groups("statusClass") == [("2xx", 3), ("4xx", 1)]
    assert await groups("verified") == [("true", 4)]
    assert await groups("operator") == [("OpenAI", 3), ("Test Operator", 1)]


async def test_days_and_weeks_start_at_midnight_utc_and_monday(tenant: Tenant):
    hour = this_hour()
    await traffic_of_two_hours(tenant, hour)
    start = hour - timedelta(days=14)
    status, body = await tenant.get(
        SUMMARY, granularity="week", **{"from": start.isoformat(), "to": (hour + timedelta(hours=1)).isoformat()}
    )
    assert status == 200
    series = body["data"]["series"]
    assert series[0]["start"] == start.isoformat()
    assert all(datetime.fromisoformat(p["start"]).weekday() == 0 for p in series[1:])
    assert sum(p["visits"] for p in series) == 4


async def test_another_organization_sees_none_of_it(tenant: Tenant, other_tenant: Tenant):
    hour = this_hour()
    await traffic_of_two_hours(tenant, hour)
    status, body = await other_tenant.get(SUMMARY, **window(hour))
    assert status == 200
    assert body["data"]["totals"]["visits"] == 0
    assert body["data"]["totals"]["successRate"] == {"value": None, "count": 0, "total": 0}
    assert body["data"]["referrals"] == []


async def test_a_period_must_be_whole_hours_in_order(tenant: Tenant):
    hour = this_hour()
    status, body = await tenant.get(SUMMARY, **{"from": (hour + timedelta(minutes=30)).isoformat()})
    assert (status, body["details"]) == (422, {"from": "Must be a whole UTC hour, such as 2026-11-28T14:00:00Z."})
    half_past = (hour + timedelta(hours=2)).astimezone(timezone(timedelta(hours=5, minutes=30)))  # 30 min in UTC
    status, body = await tenant.get(SUMMARY, **{"from": half_past.replace(minute=0).isoformat()})
    assert (status, list(body["details"])) == (422, ["from"])
    status, body = await tenant.get(SUMMARY, **{"from": hour.isoformat(), "to": hour.isoformat()})
    assert (status, body["details"]) == (422, {"from": "Must be before `to`."})
    status, body = await tenant.get(SUMMARY, granularity="minute")
    assert (status, list(body["details"])) == (422, ["granularity"])


async def test_the_summary_needs_the_analytics_read_scope(tenant: Tenant, identity):
    key = await identity.api_key(tenant.org, frozenset({"logs:read"}))
    async with tenant.api.gateway.get(SUMMARY, headers={"x-api-key": key}) as response:
        body = await response.json()
    assert (response.status, body["details"]) == (403, {"requiredScope": "analytics:read"})


async def test_distinct_paths_and_paths_by_day_count_whole_days_and_the_hours_around_them(tenant: Tenant):
    day = this_hour().replace(hour=0) - timedelta(days=2)
    sent = [
        (day - timedelta(hours=12) + timedelta(minutes=10), "/b"),
        (day - timedelta(minutes=50), "/a"),
        (day + timedelta(minutes=10), "/c"),
        (day + timedelta(days=1, hours=5, minutes=10), "/a"),
    ]
    status, body = await tenant.send([event(tenant.host, occurredAt=at.isoformat(), path=path) for at, path in sent])
    assert (status, body["data"]["accepted"]) == (200, 4)
    edges = {"from": (day - timedelta(hours=1)).isoformat(), "to": (day + timedelta(days=1, hours=6)).isoformat()}
    status, body = await tenant.get(SUMMARY, granularity="hour", **edges)
    assert (status, body["data"]["totals"]["distinctPaths"], body["data"]["totals"]["visits"]) == (200, 2, 3)
    days = {"from": (day - timedelta(days=1)).isoformat(), "to": (day + timedelta(days=2)).isoformat()}
    status, body = await tenant.get(SUMMARY, granularity="day", groupBy="path", **days)
    assert status == 200
    assert body["data"]["totals"]["distinctPaths"] == 3
    assert [(g["key"], g["visits"]) for g in body["data"]["groups"]] == [("/a", 2), ("/b", 1), ("/c", 1)]
    assert [[(g["key"], g["visits"]) for g in p["groups"]] for p in body["data"]["series"]] == [
        [("/a", 1), ("/b", 1)],
        [("/c", 1)],
        [("/a", 1)],
    ]
