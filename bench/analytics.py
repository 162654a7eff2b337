"""The analytics reports at scale: one organization with `--answers` (default 1,000,000) analysed
answers naming ten brands each (10,000,000 mentions) over 180 days on three engines; the overview
of 30 days and a 90-day daily share-of-voice series by engine (the `engines` report by day), read
from the rollups, beside the very same reports computed from the raw tables in the same run, in
UTC (the daily rollups), in Europe/Paris (the hourly rollups: a whole number of hours from UTC)
and in Asia/Kolkata (+5:30: the hourly rollups, and the raw rows of the hour a midnight splits).

The raw read is the report through the rollups' own definitions over the raw rows of every hour
(services/analytics/report_sources.py, `raw`), so both sides answer the same numbers (checked) and
only where they read differs.

    python -m deploy.stack exec -- python -c "import bench.analytics as b; b.main()"  [--answers N] [--keep]

`--keep` measures again on the answers the last run wrote when it wrote as many (a million take
about nine minutes to write on this machine). The raw tables' reads of a million answers take
minutes: their connection waits as long (RAW_TIMEOUT_SECONDS), not the parts' 30 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import date, timedelta
from typing import Any

import psycopg2
from psycopg2.extensions import make_dsn

from bench.common import BENCH_DATABASE, load_average, report, reset_database, say
from libs.common import bootstrap
from libs.common.db import create_pool
from libs.contract.parts import ANALYTICS
from libs.local.stores import local_stack
from services.analytics import overview, report_query
from services.analytics.report_sources import reading

BRANDS = 10
DAYS = 180
ENGINES = ("openai-search", "perplexity-sonar", "anthropic-web")
REPEATS = 15
ZONES = ("UTC", "Europe/Paris", "Asia/Kolkata")
RAW_TIMEOUT_SECONDS = 1800.0
END = date(2026, 11, 28)

# One organization's answers, their analyses and ten mentions each, and their rollups (as the
# migration that made the hourly ones fills them).
FILL = """
INSERT INTO answers (id, organization_id, product_id, source, prompt_text, engine, model, status, text, answered_at,
                     analysis_id)
SELECT md5('answer' || n)::uuid, %(org)s, %(product)s, 'ingested', 'Best tool?', (%(engines)s::text[])[1 + n %% 3],
       'm', CASE WHEN n %% 20 = 0 THEN 'failed' ELSE 'completed' END, 'text',
       %(end)s::timestamptz - make_interval(secs => (n::bigint * 15552000 / %(answers)s)::double precision),
       md5('analysis' || n)::uuid
FROM generate_series(1, %(answers)s) AS n;
INSERT INTO analyses (id, answer_id, organization_id, version, competitor_set_version, brand)
SELECT md5('analysis' || n)::uuid, md5('answer' || n)::uuid, %(org)s, 1, 1, '{"name": "Acme"}'
FROM generate_series(1, %(answers)s) AS n;
INSERT INTO brand_mentions (analysis_id, brand_key, answer_id, organization_id, product_id, kind, competitor_id, name,
                            mentions, first_offset, position, bucket, sentiment_label, sentiment_score, spans, engine,
                            answered_at, competitor_set_version)
SELECT n.analysis_id, CASE WHEN b = 0 THEN 'brand' ELSE md5('rival' || b)::uuid::text END, n.id, n.organization_id,
       n.product_id, CASE WHEN b = 0 THEN 'brand' ELSE 'competitor' END,
       CASE WHEN b = 0 THEN NULL ELSE md5('rival' || b)::uuid END, 'Brand ' || b, 1 + (b + n.k) %% 3, b * 10, b + 1,
       'top', 'neutral', 0.1, '[]', n.engine, n.answered_at, 1
FROM (SELECT a.*, row_number() OVER () AS k FROM answers a WHERE organization_id = %(org)s) n,
     generate_series(0, %(brands)s - 1) AS b;
SELECT rollup_apply(array_agg(analysis_id), array_agg(1)) FROM answers WHERE organization_id = %(org)s;
ANALYZE answers; ANALYZE analyses; ANALYZE brand_mentions; ANALYZE rollup_answers; ANALYZE rollup_brands;
ANALYZE rollup_answers_hourly; ANALYZE rollup_brands_hourly;
"""


async def p50(read: Callable[[], Awaitable[Any]], repeats: int) -> tuple[float, Any]:
    """The median milliseconds of `read` (after one warm-up), and what it answered."""
    answer = await read()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        await read()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), answer


def same(answer: Any) -> Any:
    """An answer with its rows in one order (a GROUP BY answers them in any)."""
    return [sorted(map(repr, part)) if isinstance(part, list) else part for part in answer]


async def measure(dsn: str, org: str, product: str, repeats: int) -> list[tuple[str, str]]:
    series_query = {
        "report": "engines",
        "from_": END - timedelta(days=89),
        "to": END + timedelta(days=1),
        "granularity": "day",
        "filters": [],
        "having": [],
        "order_by": None,
        "metrics": ["shareOfVoice"],
        "compare_to_previous": False,
        "limit": 1000,
        "cursor": None,
    }
    start, end = END - timedelta(days=29), END + timedelta(days=1)
    rows = []
    async with create_pool(dsn, ANALYTICS.schema, 1, 2, RAW_TIMEOUT_SECONDS) as pool:
        for zone in ZONES:
            results = {}
            for raw in (False, True):

                async def overview_read(zone: str = zone, raw: bool = raw) -> Any:
                    async with reading(pool, zone) as cur:
                        return await overview.read(cur, org, product, start, end, zone, raw)

                async def series_read(zone: str = zone, raw: bool = raw) -> Any:
                    async with reading(pool, zone) as cur:
                        query = {**series_query, "time_zone": zone}
                        return await report_query.run(
                            query, lambda asked: report_query.period_items(cur, org, product, asked, raw)
                        )

                times = max(3, repeats // 5) if raw else repeats
                results[raw, "overview"] = await p50(overview_read, times)
                results[raw, "series"] = await p50(series_read, times)
            for name, label in (("overview", "overview, 30 days"), ("series", "90-day daily share of voice by engine")):
                fast, slow = results[False, name], results[True, name]
                assert same(fast[1]) == same(slow[1]), f"the rollups and the raw rows disagree on the {name} in {zone}"
                rows.append((f"{zone}, {label}: rollups p50", f"{fast[0]:.1f} ms"))
                rows.append((f"{zone}, {label}: raw tables p50", f"{slow[0]:.1f} ms ({slow[0] / fast[0]:.0f}x)"))
    return rows


def written(dsn: str, answers: int) -> tuple[str, str] | None:
    """The organization and product of the last run's answers, if it wrote `answers` of them."""
    try:
        conn = psycopg2.connect(dsn)
    except psycopg2.OperationalError:  # no benchmark database yet
        return None
    with conn, conn.cursor() as cur:
        cur.execute(f"SET search_path TO {ANALYTICS.schema}")
        cur.execute("SELECT organization_id::text, product_id::text, count(*) FROM answers GROUP BY 1, 2")
        found = cur.fetchall()
    conn.close()
    if len(found) == 1 and found[0][2] == answers:
        return found[0][0], found[0][1]
    return None


def fill(admin: str, dsn: str, answers: int) -> tuple[str, str]:
    """A fresh benchmark database holding one organization's `answers` analysed answers."""
    reset_database(admin)
    bootstrap.setup(admin, (ANALYTICS,))
    org, product = str(uuid.uuid4()), str(uuid.uuid4())
    started = time.perf_counter()
    conn = psycopg2.connect(dsn)
    with conn, conn.cursor() as cur:
        cur.execute(f"SET search_path TO {ANALYTICS.schema}")
        cur.execute(
            FILL,
            {
                "org": org,
                "product": product,
                "engines": list(ENGINES),
                "answers": answers,
                "brands": BRANDS,
                "end": f"{END + timedelta(days=1)}T00:00:00Z",
            },
        )
        cur.execute("SELECT count(*) FROM brand_mentions")
        (mentions,) = cur.fetchone()
    conn.close()
    say(
        f"{answers} answers, {mentions} mentions, {DAYS} days, {len(ENGINES)} engines: written in"
        f" {time.perf_counter() - started:.0f} s; {load_average()}"
    )
    return org, product


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--keep", action="store_true", help="measure again on the last run's answers")
    args, _ = parser.parse_known_args()
    with local_stack() as base:
        admin = make_dsn(base["DATABASE_URL"], dbname=BENCH_DATABASE)
        dsn = bootstrap.part_dsn(admin, ANALYTICS)
        kept = written(dsn, args.answers) if args.keep else None
        if kept is not None:
            org, product = kept
            say(f"{args.answers} answers kept from the last run; {load_average()}")
        else:
            org, product = fill(admin, dsn, args.answers)
        rows = asyncio.run(measure(dsn, org, product, args.repeats))
        report("Analytics reports: rollups against the raw tables", [*rows, ("load", load_average())])


if __name__ == "__main__":
    main()
