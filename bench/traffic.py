"""AI traffic: ingest through the gateway against a bare COPY of the same rows, and the 30-day
summary of an App against a full scan of its raw events, on PostgreSQL and on ClickHouse
(embedded by chdb), side by side.

- Ingest: `BATCHES` batches of 1,000 GPTBot events posted through the gateway, `CONCURRENCY` at a
  time (each verified, deduplicated, stored with its rollups in one transaction), in events a
  second; the floor is psycopg2's COPY of the same rows into the same table, without rollups.
- Summary: `--events` (default 10,000,000) events of one App over 30 days (12 agents, 500 paths),
  written in bulk with their hourly rollups; the p50 of the 30-day summary by day (grouped by
  agent) through the gateway and from each store, against the p50 of a full scan of the raw
  events (count and sum of bytes of the App's rows), the query the rollups spare.

    python -m deploy.stack exec -- python -m bench.traffic [--events N]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import psycopg2

from bench.common import BenchStack, bench_stack, load_average, report, say
from gateway import queries as identity
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.common.encoding import dumps
from libs.contract.parts import APPS, GATEWAY, TRAFFIC
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import apps as app_queries
from services.traffic.store import SummaryQuery
from services.traffic.store_postgres import PostgresStore, partition_name, summary_params, summary_statements

BATCHES = 30
CONCURRENCY = 2
SUMMARIES = 40
SCANS = 3
DAYS = 30
GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
BOTS = (
    "gptbot",
    "oai-searchbot",
    "chatgpt-user",
    "claudebot",
    "claude-user",
    "perplexitybot",
    "perplexity-user",
    "googlebot",
    "bingbot",
    "ccbot",
    "bytespider",
    "amazonbot",
)
CATEGORIES = (
    "training",
    "search",
    "user_fetch",
    "training",
    "user_fetch",
    "search",
    "user_fetch",
    "search",
    "search",
    "dataset",
    "training",
    "search",
)


async def tenant(stack: BenchStack) -> dict[str, str]:
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        row = await identity.create_organization(cur, f"bench-{uuid.uuid4().hex[:6]}", "Bench")
        key, _ = await create_api_key(cur, str(row["id"]), "bench", ALL_SCOPES)
    host = f"docs-{uuid.uuid4().hex[:6]}.example.com"
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 2) as pool, transaction(pool) as cur:
        app = await app_queries.create_app(cur, str(row["id"]), "Docs", "docs", {})
        values = {"type": "web", "scope": "app", "app_id": app["id"], "domain": host}
        domain = await register_domain(cur, LocalEdgeProvider(), str(row["id"]), values)
    return {"org": str(row["id"]), "key": key, "host": host, "app": str(app["id"]), "domain": str(domain["id"])}


def batch(host: str, size: int = 1000) -> list[dict[str, Any]]:
    now = datetime.now(UTC)
    return [
        {
            "id": uuid.uuid4().hex,
            "occurredAt": (now - timedelta(seconds=i)).isoformat(),
            "host": host,
            "path": f"/docs/p{i % 500}",
            "method": "GET",
            "status": 200,
            "userAgent": GPTBOT,
            "ip": "20.171.206.9",
            "bytes": 1000 + i,
        }
        for i in range(size)
    ]


async def ingest(stack: BenchStack, who: dict[str, str]) -> tuple[float, int]:
    """Events a second through the gateway, and how many were accepted."""
    batches = [dumps(batch(who["host"])) for _ in range(BATCHES)]
    headers = {"x-api-key": who["key"], "Content-Type": "application/json"}
    url = stack.url("gateway") + "/api/v1/analytics/events"
    accepted = 0
    async with aiohttp.ClientSession() as session:

        async def send(body: bytes) -> None:
            nonlocal accepted
            async with session.post(url, data=io.BytesIO(body), headers=headers) as response:
                assert response.status == 200, await response.text()
                accepted += (await response.json())["data"]["accepted"]

        await send(dumps(batch(who["host"], 10)))  # a first call: the host is cached, pools warm
        accepted = 0
        started = time.perf_counter()
        for first in range(0, BATCHES, CONCURRENCY):
            await asyncio.gather(*(send(body) for body in batches[first : first + CONCURRENCY]))
        elapsed = time.perf_counter() - started
    return accepted / elapsed, accepted


def copy_floor(stack: BenchStack, who: dict[str, str]) -> float:
    """Events a second of a bare COPY of the same rows into the same table (no rollups, no checks)."""
    now = datetime.now(UTC)
    buffer = io.StringIO()
    for i in range(BATCHES * 1000):
        buffer.write(
            f"{who['org']}\tc{i}\t{(now - timedelta(seconds=i % 3600)).isoformat()}\tingest\t{who['app']}\t"
            f"{who['domain']}\t{who['host']}\t/docs/p{i % 500}\tGET\t200\t{GPTBOT}\t20.171.206.0/24\t"
            f"{1000 + i}\tagent\tgptbot\tOpenAI\ttraining\tf\tua\tf\n"
        )
    columns = (
        "organization_id, id, occurred_at, source, app_id, domain_id, host, path, method, status, user_agent,"
        " client_network, bytes, kind, bot_id, operator, category, verified, matched_by, spoofed"
    )
    conn = psycopg2.connect(stack.part_dsn(TRAFFIC), options=f"-c search_path={TRAFFIC.schema}")
    with conn, conn.cursor() as cur:
        buffer.seek(0)
        started = time.perf_counter()
        cur.copy_expert(f"COPY events ({columns}) FROM STDIN", buffer)
        elapsed = time.perf_counter() - started
    conn.close()
    return BATCHES * 1000 / elapsed


SEED = """
INSERT INTO events (organization_id, id, occurred_at, source, app_id, domain_id, host, path, method, status,
                    user_agent, client_network, bytes, kind, bot_id, operator, category, verified, matched_by, spoofed)
SELECT %(org)s, 's' || g, %(start)s + (g::float8 / %(n)s) * interval '30 days', 'ingest', %(app)s, %(domain)s,
       %(host)s, '/docs/p' || (g %% 500), 'GET', CASE WHEN g %% 20 = 0 THEN 404 ELSE 200 END, 'bench',
       '203.0.113.0/24', 1000 + g %% 5000, 'agent', (%(bots)s::text[])[1 + g %% 12], 'operator',
       (%(categories)s::text[])[1 + g %% 12], g %% 3 = 0, 'ua', false
FROM generate_series(1, %(n)s) g
"""
ROLLUPS = """
INSERT INTO agent_hourly SELECT organization_id, app_id, date_trunc('hour', occurred_at), bot_id, operator, category,
       (status / 100)::text || 'xx', verified, spoofed, count(*), sum(bytes)
FROM events WHERE organization_id = %(org)s GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
INSERT INTO agent_daily SELECT organization_id, app_id, date_trunc('day', hour), bot_id, operator, category,
       status_class, verified, spoofed, sum(visits), sum(bytes)
FROM agent_hourly WHERE organization_id = %(org)s GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
INSERT INTO path_hourly SELECT organization_id, app_id, date_trunc('hour', occurred_at), path,
       (status / 100)::text || 'xx', verified, count(*), sum(bytes)
FROM events WHERE organization_id = %(org)s GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO path_daily SELECT organization_id, app_id, date_trunc('day', hour), path, status_class, verified,
       sum(visits), sum(bytes)
FROM path_hourly WHERE organization_id = %(org)s GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO app_path_daily SELECT DISTINCT organization_id, app_id, day, path
FROM path_daily WHERE organization_id = %(org)s;
"""
SCAN = "SELECT count(*), sum(bytes) FROM events WHERE organization_id = %(org)s AND app_id = %(app)s"


def seed_postgres(stack: BenchStack, who: dict[str, str], events: int, start: datetime) -> float:
    conn = psycopg2.connect(stack.part_dsn(TRAFFIC), options=f"-c search_path={TRAFFIC.schema} -c timezone=UTC")
    params = {**who, "n": events, "start": start, "bots": list(BOTS), "categories": list(CATEGORIES)}
    started = time.perf_counter()
    with conn, conn.cursor() as cur:
        for day in range(DAYS + 2):
            moment = start + timedelta(days=day)
            cur.execute(
                f"CREATE TABLE IF NOT EXISTS {partition_name(moment)} PARTITION OF events FOR VALUES FROM (%s) TO (%s)",
                (moment, moment + timedelta(days=1)),
            )
        cur.execute(SEED, params)
        cur.execute(ROLLUPS, params)
    conn.autocommit = True  # VACUUM runs outside a transaction; it sets what autovacuum would
    with conn.cursor() as cur:
        cur.execute("VACUUM ANALYZE events, agent_hourly, agent_daily, path_hourly, path_daily, app_path_daily")
    conn.close()
    return time.perf_counter() - started


def postgres_plans(stack: BenchStack, who: dict[str, str], start: datetime) -> list[tuple[str, str]]:
    """Each statement of the summary under EXPLAIN (ANALYZE, BUFFERS): its time and pages read."""
    conn = psycopg2.connect(stack.part_dsn(TRAFFIC), options=f"-c search_path={TRAFFIC.schema} -c timezone=UTC")
    summary = query(who, start)
    found = []
    with conn, conn.cursor() as cur:
        for name, statement in summary_statements(summary).items():
            cur.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {statement}", summary_params(who["org"], summary))
            plan = cur.fetchone()[0][0]
            top = plan["Plan"]
            pages = top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0)
            found.append(
                (
                    f"  {name}",
                    f"{plan['Execution Time']:8.2f} ms, {top['Actual Rows']} rows, {pages} pages, {top['Node Type']}",
                )
            )
    conn.close()
    return found


def postgres_scan(stack: BenchStack, who: dict[str, str]) -> list[float]:
    conn = psycopg2.connect(stack.part_dsn(TRAFFIC), options=f"-c search_path={TRAFFIC.schema}")
    timings = []
    with conn, conn.cursor() as cur:
        for _ in range(SCANS):
            started = time.perf_counter()
            cur.execute(SCAN, who)
            cur.fetchall()
            timings.append((time.perf_counter() - started) * 1000)
    conn.close()
    return timings


async def timed(call: Callable[[], Awaitable[Any]], count: int) -> list[float]:
    await call()
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        await call()
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def query(who: dict[str, str], start: datetime) -> SummaryQuery:
    return SummaryQuery(who["app"], start, start + timedelta(days=DAYS), "day", "bot")


async def postgres_summaries(
    stack: BenchStack, who: dict[str, str], start: datetime
) -> tuple[list[float], list[float]]:
    """(through the gateway, from the store) in ms."""
    url = stack.url("gateway") + "/api/v1/ai-traffic/summary"
    params = {
        "appId": who["app"],
        "from": start.isoformat(),
        "to": (start + timedelta(days=DAYS)).isoformat(),
        "granularity": "day",
        "groupBy": "bot",
    }
    async with aiohttp.ClientSession(headers={"x-api-key": who["key"]}) as session:

        async def through_gateway() -> None:
            async with session.get(url, params=params) as response:
                assert response.status == 200, await response.text()
                await response.read()

        gateway = await timed(through_gateway, SUMMARIES)
    async with create_pool(stack.part_dsn(TRAFFIC), TRAFFIC.schema, 1, 2) as pool:
        store = PostgresStore(pool)
        direct = await timed(lambda: store.summary(who["org"], query(who, start)), SUMMARIES)
    return gateway, direct


async def clickhouse(who: dict[str, str], events: int, start: datetime) -> tuple[float, list[float], list[float]]:
    """(seconds to load, summary ms, full scan ms) on ClickHouse embedded by chdb."""
    from libs.local.chdb_engine import ChdbEngine
    from services.traffic.store_clickhouse import ClickHouseStore, when

    with tempfile.TemporaryDirectory() as path:
        engine = ChdbEngine(path)
        store = ClickHouseStore(engine)
        await store.maintain(datetime.now(UTC), 400)
        started = time.perf_counter()
        await engine.command(f"""
            INSERT INTO events (uid, organization_id, id, occurred_at, source, app_id, domain_id, host, path, method,
                status, user_agent, client_network, bytes, kind, bot_id, operator, category, verified, matched_by,
                spoofed)
            SELECT generateUUIDv4(), '{who["org"]}', concat('s', toString(number)),
                toDateTime64('{when(start)}', 6, 'UTC')
                    + toIntervalSecond(intDiv(number * {DAYS * 86400}, {events})),
                'ingest', '{who["app"]}', '{who["domain"]}', '{who["host"]}', concat('/docs/p', toString(number % 500)),
                'GET', if(number % 20 = 0, 404, 200), 'bench', '203.0.113.0/24', 1000 + number % 5000, 'agent',
                {list(BOTS)}[1 + number % 12], 'operator', {list(CATEGORIES)}[1 + number % 12], number % 3 = 0, 'ua',
                false
            FROM numbers({events})""")
        loaded = time.perf_counter() - started
        summary = await timed(lambda: store.summary(who["org"], query(who, start)), SUMMARIES)
        scan_sql = "SELECT count(), sum(bytes) FROM events WHERE organization_id = {org:UUID} AND app_id = {app:UUID}"
        scan = await timed(lambda: engine.query(scan_sql, {"org": who["org"], "app": who["app"]}), SCANS)
        engine.close()
    return loaded, summary, scan


def p50(timings: list[float]) -> str:
    return f"p50 {statistics.median(timings):8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10_000_000, help="events of the App over 30 days")
    args = parser.parse_args()
    start = (datetime.now(UTC) - timedelta(days=DAYS)).replace(hour=0, minute=0, second=0, microsecond=0)
    with bench_stack((GATEWAY, APPS, TRAFFIC)) as stack:
        say(load_average())
        who = asyncio.run(tenant(stack))
        rate, accepted = asyncio.run(ingest(stack, who))
        floor = copy_floor(stack, who)
        report(
            f"AI traffic ingest, {BATCHES} batches of 1,000 ({load_average()})",
            [
                ("gateway", f"{rate:10.0f} events/s ({accepted} accepted, {CONCURRENCY} batches at a time)"),
                ("bare COPY", f"{floor:10.0f} events/s"),
                ("ratio", f"{rate / floor:.2f} of COPY"),
            ],
        )
        archive = asyncio.run(tenant(stack))
        say(f"seeding {args.events:,} events in PostgreSQL")
        seeded = seed_postgres(stack, archive, args.events, start)
        gateway, direct = asyncio.run(postgres_summaries(stack, archive, start))
        scan = postgres_scan(stack, archive)
        plans = postgres_plans(stack, archive, start)
    say(f"seeding {args.events:,} events in ClickHouse (chdb)")
    loaded, ch_summary, ch_scan = asyncio.run(clickhouse(archive, args.events, start))
    report(
        f"AI traffic 30-day summary, {args.events:,} events ({load_average()})",
        [
            ("PostgreSQL load", f"{seeded:8.1f} s (bulk insert and rollups)"),
            ("PostgreSQL summary, gateway", p50(gateway)),
            ("PostgreSQL summary, store", p50(direct)),
            ("PostgreSQL full scan", p50(scan)),
            ("PostgreSQL ratio", f"{statistics.median(scan) / statistics.median(direct):.0f}x faster than the scan"),
            ("PostgreSQL statements", "EXPLAIN (ANALYZE, BUFFERS), once"),
            *plans,
            ("ClickHouse load", f"{loaded:8.1f} s (insert, rollups by materialized views)"),
            ("ClickHouse summary, store", p50(ch_summary)),
            ("ClickHouse full scan", p50(ch_scan)),
            (
                "ClickHouse ratio",
                f"{statistics.median(ch_scan) / statistics.median(ch_summary):.1f}x faster than the scan",
            ),
        ],
    )


if __name__ == "__main__":
    main()
