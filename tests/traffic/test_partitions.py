"""The raw events' daily partitions: made ahead of time, and dropped past the retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from libs.common.db import cursor, fetch_all
from services.traffic.store_postgres import ROLLUPS, PostgresStore, partition_name


async def partitions(pool) -> set[str]:
    async with cursor(pool) as cur:
        rows = await fetch_all(
            cur,
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = 'events'::regclass",
        )
    return {row["relname"] for row in rows}


async def test_days_ahead_and_the_late_week_exist(traffic_pool):
    now = datetime.now(UTC)
    await PostgresStore(traffic_pool).maintain(now, 90)
    expected = {partition_name(now + timedelta(days=offset)) for offset in range(-7, 4)}
    assert expected <= await partitions(traffic_pool)


async def test_a_day_past_the_retention_is_dropped_with_its_rollups(traffic_pool):
    old = datetime(2020, 1, 1, tzinfo=UTC)
    async with cursor(traffic_pool) as cur:
        await cur.execute(
            f"CREATE TABLE IF NOT EXISTS {partition_name(old)} PARTITION OF events"
            " FOR VALUES FROM ('2020-01-01') TO ('2020-01-02')"
        )
        for table in ("agent_hourly", "agent_daily"):
            await cur.execute(
                f"INSERT INTO {table} VALUES (gen_random_uuid(), gen_random_uuid(), %s, 'gptbot', 'OpenAI',"
                " 'training', '2xx', false, false, 1, 10)",
                (old,),
            )
        for table in ("path_hourly", "path_daily"):
            await cur.execute(
                f"INSERT INTO {table} VALUES (gen_random_uuid(), gen_random_uuid(), %s, '/a', '2xx', true, 1, 10)",
                (old,),
            )
        await cur.execute("INSERT INTO app_path_daily VALUES (gen_random_uuid(), gen_random_uuid(), %s, '/a')", (old,))
    await PostgresStore(traffic_pool).maintain(datetime.now(UTC), 90)
    assert partition_name(old) not in await partitions(traffic_pool)
    async with cursor(traffic_pool) as cur:
        for table, period in ROLLUPS:
            assert await fetch_all(cur, f"SELECT 1 FROM {table} WHERE {period} < '2021-01-01'") == [], table
