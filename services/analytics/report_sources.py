"""Where a report reads its sums: the daily rollups when its days are UTC days; in any other named
time zone, each UTC day's daily rollups counted on the zone's day of its noon, the hours of it that
lie in another day of the zone moved there from the hourly rollups, and the hours one of the zone's
midnights falls inside (a zone whose offset from UTC is not a whole number of hours: one such hour a
day) summed from the raw rows (the current analyses of the product's answers of those hours), by
the one definition of what an analysis adds (migrations/012_hourly_rollups.sql, `rollup_*_in`).
The days are exact in every zone, summer time included: a day of a whole-hour zone is whole UTC
hours, whatever its offset that day, and the raw hours are split at the zone's own midnight."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from psycopg2 import sql

from libs.common.db import transaction

UTC_ZONE = "UTC"
# The named zones a report may be read in: the IANA database's (PostgreSQL's own knows them too).
ZONES = frozenset(available_timezones()) | {UTC_ZONE}

# The rollup rows of the analyses current for the product's answers of [since, until), by hour (in
# the report zone, migrations/012_hourly_rollups.sql) with its day there; the answers are found hour
# by hour of the period.
RAW = """(
    SELECT r.*, (r.hour AT TIME ZONE %(zone)s)::date AS day FROM (
        SELECT coalesce(array_agg(a.analysis_id), '{{}}') AS ids
        FROM generate_series(
            date_trunc('hour', %(since)s::timestamptz, 'UTC'), %(until)s::timestamptz, interval '1 hour'
        ) AS h (hour)
        JOIN answers a ON a.answered_at >= h.hour AND a.answered_at < h.hour + interval '1 hour'
        WHERE a.organization_id = %(organization_id)s AND a.product_id = %(product_id)s
          AND a.analysis_id IS NOT NULL AND a.answered_at >= %(since)s AND a.answered_at < %(until)s
    ) chosen, {function}(chosen.ids, array_fill(1, ARRAY[cardinality(chosen.ids)])) r
) AS {table}"""
# UTC's rows: the daily rollups of the period's days.
DAILY = """(
    SELECT * FROM {table} WHERE organization_id = %(organization_id)s AND product_id = %(product_id)s
      AND day >= %(first_day)s AND day < %(end_day)s
) AS {table}"""
# Another zone's rows: the daily rollups, corrected by hourly rows where the zone's days cut UTC
# days, and the raw rows of the hours its midnights split (migrations/012_hourly_rollups.sql).
ZONED = "{function}(%(organization_id)s, %(product_id)s, %(since)s, %(until)s, %(zone)s) AS {table}"


def instant(day: date, zone: str) -> datetime:
    """The moment `day` starts in `zone`."""
    return datetime.combine(day, time(), tzinfo=ZoneInfo(zone))


def source(table: str, zone: str, raw: bool = False) -> sql.Composable:
    """What a report's query reads for the rollup `table` (`rollup_answers`, `rollup_brands`,
    `rollup_domains`) in `zone`: the product's rows of the period, each with its `day` there, with
    the parameters of `bounds`, `organization_id` and `product_id`; `raw`: the same rows computed
    from the raw rows of every hour (what the rollups are checked and measured against)."""
    if raw:
        return sql.SQL(RAW).format(function=sql.Identifier(f"{table}_of"), table=sql.Identifier(table))
    if zone == UTC_ZONE:
        return sql.SQL(DAILY).format(table=sql.Identifier(table))
    return sql.SQL(ZONED).format(function=sql.Identifier(f"{table}_in"), table=sql.Identifier(table))


def bounds(start: date, end: date, zone: str) -> dict[str, Any]:
    """The parameters of the answers of the days `[start, end)` in `zone`."""
    return {
        "zone": zone,
        "since": instant(start, zone),
        "until": instant(end, zone),
        "first_day": start,
        "end_day": end,
    }


@asynccontextmanager
async def reading(pool: Any, zone: str) -> AsyncIterator[Any]:
    """A cursor whose transaction reads the days of `zone` (the raw rows' hours are taken there)."""
    async with transaction(pool) as cur:
        if zone != UTC_ZONE:
            await cur.execute("SELECT set_config('analytics.report_zone', %s, true)", (zone,))
        yield cur
