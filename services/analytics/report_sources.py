"""Where a report reads its sums: the daily rollups when its days are UTC days; in any other named
time zone, the hourly rollups with each hour's day in that zone, but for the hours one of the zone's
midnights falls inside (a zone whose offset from UTC is not a whole number of hours: one such hour a
day), whose sums are computed from the raw rows (the current analyses of the product's answers of
those hours), by the one definition of what an analysis adds (migrations/012_hourly_rollups.sql).
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

# The UTC hours of [since, until) (the first and the last may hold a part of it only), each with
# its day in the report's zone, and whether a midnight of the zone falls after its start (`split`:
# it holds answers of two of the zone's days).
HOURS = """
SELECT hour, (hour AT TIME ZONE %(zone)s)::date AS day,
       (hour AT TIME ZONE %(zone)s)::date
       <> ((hour + interval '1 hour' - interval '1 microsecond') AT TIME ZONE %(zone)s)::date AS split
FROM generate_series(
    date_trunc('hour', %(since)s::timestamptz, 'UTC'),
    %(until)s::timestamptz - interval '1 microsecond',
    interval '1 hour'
) AS hour
"""
# The rollup rows, by hour (in the report zone, migrations/012_hourly_rollups.sql) with its day
# there, of the analyses current for the product's answers of [since, until) answered in the hours
# `{hours}` names (none read when it names none).
RAW = """
SELECT r.*, (r.hour AT TIME ZONE %(zone)s)::date AS day FROM (
    SELECT coalesce(array_agg(a.analysis_id), '{{}}') AS ids FROM {hours} h
    JOIN answers a ON a.answered_at >= h.hour AND a.answered_at < h.hour + interval '1 hour'
    WHERE a.organization_id = %(organization_id)s AND a.product_id = %(product_id)s AND a.analysis_id IS NOT NULL
      AND a.answered_at >= %(since)s AND a.answered_at < %(until)s
) chosen, {function}(chosen.ids, array_fill(1, ARRAY[cardinality(chosen.ids)])) r
WHERE cardinality(chosen.ids) > 0
"""
# UTC's rows: the daily rollups of the period's days.
DAILY = """(
    SELECT * FROM {table} WHERE organization_id = %(organization_id)s AND product_id = %(product_id)s
      AND day >= %(first_day)s AND day < %(end_day)s
) AS {table}"""
# A zone's rows: its whole hours from the hourly rollups (each hour's day looked up once), its
# split hours from the raw rows.
ZONED = """(
    WITH hours AS ({hours})
    SELECT r.*, h.day FROM hours h JOIN {hourly} r ON r.hour = h.hour
    WHERE NOT h.split AND r.organization_id = %(organization_id)s AND r.product_id = %(product_id)s
      AND r.hour >= %(since)s AND r.hour < %(until)s
    UNION ALL
    {raw}
) AS {table}"""


def instant(day: date, zone: str) -> datetime:
    """The moment `day` starts in `zone`."""
    return datetime.combine(day, time(), tzinfo=ZoneInfo(zone))


def raw_rows(table: str, hours: str) -> sql.Composable:
    """The rows of `table` computed from the raw rows of the answers of the hours the query `hours` selects."""
    return sql.SQL(RAW).format(hours=sql.SQL(f"({hours})"), function=sql.Identifier(f"{table}_of"))


def source(table: str, zone: str, raw: bool = False) -> sql.Composable:
    """What a report's query reads for the rollup `table` (`rollup_answers`, `rollup_brands`,
    `rollup_domains`) in `zone`: the product's rows of the period, each with its `day` there, with
    the parameters of `bounds`, `organization_id` and `product_id`; `raw`: the same rows computed
    from the raw rows of every hour (what the rollups are checked and measured against)."""
    if raw:
        return sql.SQL("({}) AS {}").format(raw_rows(table, HOURS), sql.Identifier(table))
    if zone == UTC_ZONE:
        return sql.SQL(DAILY).format(table=sql.Identifier(table))
    return sql.SQL(ZONED).format(
        hours=sql.SQL(HOURS),
        hourly=sql.Identifier(f"{table}_hourly"),
        raw=raw_rows(table, "SELECT hour FROM hours WHERE split"),
        table=sql.Identifier(table),
    )


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
