"""The paths-by-App-and-day rollup agrees with the raw events it is kept from, on both stores, and
the distinct paths of any range agree with the events sent."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from libs.common.db import cursor, fetch_all
from services.traffic.state import CLICKHOUSE_ENGINE
from tests.traffic.support import BROWSER_UA, TESTBOT_UA, Tenant, event

SUMMARY = "/api/v1/ai-traffic/summary"
PATHS = [f"/p{n}" for n in range(12)]
# (user agent, address): a verified agent, an unverified claim, a spoofed claim, a human.
SENDERS = [
    ({}, True),
    ({"userAgent": TESTBOT_UA, "ip": "198.51.100.9"}, True),
    ({"userAgent": TESTBOT_UA, "ip": "192.0.2.200"}, False),
    ({"userAgent": BROWSER_UA}, False),
]


async def rollup_and_events(tenant: Tenant, traffic_pool: Any) -> tuple[set[tuple[str, str, str]], set[tuple]]:
    """(the rollup's rows, the same rows computed from the raw events) of the tenant's organization."""
    rollup = "SELECT app_id, day, path FROM app_path_daily WHERE organization_id = {org}"
    if tenant.api.store == "clickhouse":
        engine = tenant.api.server.app[CLICKHOUSE_ENGINE]
        assert engine is not None
        raw = (
            "SELECT DISTINCT app_id, toDateTime(toStartOfDay(occurred_at), 'UTC') AS day, path FROM events"
            " WHERE organization_id = {org} AND kind = 'agent' AND NOT spoofed"
        )
        found = []
        for statement in (rollup, raw):
            answer = await engine.query(statement.format(org="{org:UUID}"), {"org": tenant.org.id})
            rows = map(orjson.loads, answer.splitlines())
            found.append({(row["app_id"], row["day"][:10], row["path"]) for row in rows})
        return found[0], found[1]
    raw = (
        "SELECT DISTINCT app_id, date_trunc('day', occurred_at, 'UTC') AS day, path FROM events"
        " WHERE organization_id = {org} AND kind = 'agent' AND NOT spoofed"
    )
    found = []
    async with cursor(traffic_pool) as cur:
        for statement in (rollup, raw):
            rows = await fetch_all(cur, statement.format(org="%(org)s"), {"org": tenant.org.id})
            found.append({(str(row["app_id"]), f"{row['day'].astimezone(UTC):%Y-%m-%d}", row["path"]) for row in rows})
    return found[0], found[1]


async def test_the_daily_paths_agree_with_the_raw_events_after_random_ingests(tenant: Tenant, traffic_pool: Any):
    chance = random.Random()
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    sent: list[tuple[datetime, str]] = []
    for _ in range(6):
        batch = []
        for _ in range(chance.randint(1, 40)):
            sender, counted = chance.choice(SENDERS)
            at = now - timedelta(minutes=chance.randint(1, 6 * 24 * 60))
            path = chance.choice(PATHS)
            batch.append(event(tenant.host, occurredAt=at.isoformat(), path=path, **sender))
            if counted:
                sent.append((at, path))
        status, _ = await tenant.send(batch + batch[:3])  # some ids twice: counted once
        assert status == 200
    rollup, raw = await rollup_and_events(tenant, traffic_pool)
    assert rollup == raw
    assert rollup == {(tenant.app_id, f"{at:%Y-%m-%d}", path) for at, path in sent}
    for _ in range(8):
        back = chance.randint(1, 7 * 24)
        start = now - timedelta(hours=back)
        end = start + timedelta(hours=chance.randint(1, back + 1))
        status, body = await tenant.get(
            SUMMARY, appId=tenant.app_id, granularity="day", **{"from": start.isoformat(), "to": end.isoformat()}
        )
        assert status == 200, body
        expected = len({path for at, path in sent if start <= at < end})
        assert body["data"]["totals"]["distinctPaths"] == expected, (start, end)


async def test_clickhouse_fills_the_daily_paths_from_the_older_rollup_when_first_made(tmp_path: Any):
    from libs.local.chdb_engine import ChdbEngine
    from services.traffic.store_clickhouse import ClickHouseStore

    engine = ChdbEngine(str(tmp_path / "clickhouse"))
    try:
        await ClickHouseStore(engine).maintain(datetime.now(UTC), 90)
        for statement in ("DROP TABLE app_path_daily_view", "DROP TABLE app_path_daily"):
            await engine.command(statement)  # as made before the daily paths existed
        await engine.command(
            "INSERT INTO events (uid, organization_id, id, occurred_at, app_id, path, status, kind, verified, spoofed)"
            " SELECT generateUUIDv4(), '00000000-0000-0000-0000-000000000001', toString(number),"
            " toDateTime64('2026-11-20 00:00:00', 6, 'UTC') + toIntervalMinute(number * 97), "
            " '00000000-0000-0000-0000-000000000002', concat('/p', toString(number % 7)), 200,"
            " if(number % 5 = 0, 'referral', 'agent'), number % 2 = 0, number % 3 = 0 FROM numbers(200)"
        )
        await ClickHouseStore(engine).maintain(datetime.now(UTC), 90)
        found = []
        for statement in (
            "SELECT DISTINCT app_id, day, path FROM app_path_daily",
            "SELECT DISTINCT app_id, toDateTime(toStartOfDay(occurred_at), 'UTC') AS day, path FROM events"
            " WHERE kind = 'agent' AND NOT spoofed",
        ):
            answer = await engine.query(statement, {})
            found.append({(row["app_id"], row["day"], row["path"]) for row in map(orjson.loads, answer.splitlines())})
        assert found[0] == found[1] != set()
    finally:
        engine.close()
