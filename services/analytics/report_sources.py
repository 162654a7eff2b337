"""Where a report reads its sums: the daily rollups when its days are UTC days; in any other named
time zone, the same sums computed from the raw rows (the current analyses of the product's
answers in the period) with their days in that zone, by the one definition of what an analysis
adds (migrations/004_rollups.sql, 005_report_zones.sql)."""

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

# The rollup rows of the analyses current for the product's answers of [since, until), each its
# day in the transaction's report zone; `{table}` names it as the rollup table it stands for.
RAW = """(
    SELECT r.* FROM (
        SELECT coalesce(array_agg(analysis_id), '{{}}') AS ids FROM answers
        WHERE organization_id = %(organization_id)s AND product_id = %(product_id)s AND analysis_id IS NOT NULL
          AND answered_at >= %(since)s AND answered_at < %(until)s
    ) chosen, {function}(chosen.ids, array_fill(1, ARRAY[cardinality(chosen.ids)])) r
) AS {table}"""


def instant(day: date, zone: str) -> datetime:
    """The moment `day` starts in `zone`."""
    return datetime.combine(day, time(), tzinfo=ZoneInfo(zone))


def source(table: str, zone: str) -> sql.Composable:
    """What a report's query reads for the rollup `table` (`rollup_answers`, `rollup_brands`,
    `rollup_domains`) in `zone`; a raw read takes the parameters `since` and `until` (`bounds`)."""
    if zone == UTC_ZONE:
        return sql.Identifier(table)
    return sql.SQL(RAW).format(function=sql.Identifier(f"{table}_of"), table=sql.Identifier(table))


def bounds(start: date, end: date, zone: str) -> dict[str, Any]:
    """The parameters of the answers of the days `[start, end)` in `zone`."""
    return {"zone": zone, "since": instant(start, zone), "until": instant(end, zone)}


@asynccontextmanager
async def reading(pool: Any, zone: str) -> AsyncIterator[Any]:
    """A cursor whose transaction reads the days of `zone` (the raw rows' days are counted there)."""
    async with transaction(pool) as cur:
        if zone != UTC_ZONE:
            await cur.execute("SELECT set_config('analytics.report_zone', %s, true)", (zone,))
        yield cur
