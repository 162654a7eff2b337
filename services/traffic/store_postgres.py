"""The PostgreSQL store: raw events in daily partitions, hourly rollups written with them.

One statement stores a batch (`RECORD`): the ids the organization never sent are claimed in
`event_keys`, the new events inserted from one JSON parameter (a multi-row insert, no row per
request), and the rollups added to, all in one transaction: a batch is acknowledged only once
all of it is durable, and nothing is counted twice.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import aiopg
from psycopg2 import sql

from libs.common.db import cursor, fetch_all, fetch_value, transaction
from libs.common.encoding import dumps
from services.traffic.store import LogFilters, Row, SummaryQuery, SummarySums, Sums, by_whole_days

COLUMNS = (
    ("id", "text"), ("occurred_at", "timestamptz"), ("source", "text"), ("app_id", "uuid"), ("domain_id", "uuid"),
    ("host", "text"), ("path", "text"), ("method", "text"), ("status", "smallint"), ("user_agent", "text"),
    ("client_network", "cidr"), ("referer", "text"), ("bytes", "bigint"), ("duration_ms", "double precision"),
    ("kind", "text"), ("bot_id", "text"), ("claimed_bot_id", "text"), ("operator", "text"), ("category", "text"),
    ("verified", "boolean"), ("matched_by", "text"), ("spoofed", "boolean"), ("referral_platform", "text"),
)  # fmt: skip
NAMES = ", ".join(name for name, _ in COLUMNS)
STATUS_CLASS = "(s.status / 100)::text || 'xx'"

RECORD = f"""
WITH batch AS (
    SELECT * FROM json_to_recordset(%(rows)s::json) AS b({", ".join(f"{n} {t}" for n, t in COLUMNS)})
), fresh AS (
    INSERT INTO event_keys (organization_id, id) SELECT %(org)s::uuid, id FROM batch
    ON CONFLICT DO NOTHING RETURNING id
), stored AS (
    INSERT INTO events (organization_id, {NAMES})
    SELECT %(org)s::uuid, {", ".join(f"b.{name}" for name, _ in COLUMNS)} FROM batch b JOIN fresh USING (id)
    RETURNING app_id, occurred_at, kind, bot_id, operator, category, status, verified, spoofed, bytes, path,
              referral_platform
), agents AS (
    INSERT INTO agent_hourly AS r
        (organization_id, app_id, hour, bot_id, operator, category, status_class, verified, spoofed, visits, bytes)
    SELECT %(org)s::uuid, app_id, date_trunc('hour', occurred_at), coalesce(bot_id, ''), coalesce(operator, ''),
           coalesce(category, ''), {STATUS_CLASS}, verified, spoofed, count(*), coalesce(sum(bytes), 0)
    FROM stored s WHERE kind = 'agent' GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    ON CONFLICT (organization_id, app_id, hour, bot_id, operator, category, status_class, verified, spoofed)
    DO UPDATE SET visits = r.visits + excluded.visits, bytes = r.bytes + excluded.bytes
), paths AS (
    INSERT INTO path_hourly AS r (organization_id, app_id, hour, path, status_class, verified, visits, bytes)
    SELECT %(org)s::uuid, app_id, date_trunc('hour', occurred_at), path, {STATUS_CLASS}, verified, count(*),
           coalesce(sum(bytes), 0)
    FROM stored s WHERE kind = 'agent' AND NOT spoofed GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (organization_id, app_id, hour, path, status_class, verified)
    DO UPDATE SET visits = r.visits + excluded.visits, bytes = r.bytes + excluded.bytes
), path_days AS (
    INSERT INTO path_daily AS r (organization_id, app_id, day, path, status_class, verified, visits, bytes)
    SELECT %(org)s::uuid, app_id, date_trunc('day', occurred_at), path, {STATUS_CLASS}, verified, count(*),
           coalesce(sum(bytes), 0)
    FROM stored s WHERE kind = 'agent' AND NOT spoofed GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (organization_id, app_id, day, path, status_class, verified)
    DO UPDATE SET visits = r.visits + excluded.visits, bytes = r.bytes + excluded.bytes
), referrals AS (
    INSERT INTO referral_hourly AS r (organization_id, app_id, hour, platform, visits)
    SELECT %(org)s::uuid, app_id, date_trunc('hour', occurred_at), referral_platform, count(*)
    FROM stored WHERE kind = 'referral' GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (organization_id, app_id, hour, platform) DO UPDATE SET visits = r.visits + excluded.visits
)
SELECT count(*) FROM stored
"""

LOG_FILTERS = {
    "app_id": "app_id = %(app_id)s",
    "host": "host = %(host)s",
    "bot_id": "bot_id = %(bot_id)s",
    "category": "category = %(category)s",
    "verified": "verified = %(verified)s",
    "status_class": "status >= %(status_low)s AND status < %(status_low)s + 100",
    "path_prefix": "starts_with(path, %(path_prefix)s)",
    "start": "occurred_at >= %(start)s",
    "end": "occurred_at < %(end)s",
}

# The summary's groups: the rollup column each one reads.
GROUP_COLUMNS = {
    "bot": "bot_id",
    "operator": "operator",
    "category": "category",
    "statusClass": "status_class",
    "verified": "verified::text",
    "path": "path",
}
AGENT_SUMS = """
    coalesce(sum(visits) FILTER (WHERE NOT spoofed), 0) AS visits,
    coalesce(sum(visits) FILTER (WHERE verified AND NOT spoofed), 0) AS verified_visits,
    coalesce(sum(visits) FILTER (WHERE status_class IN ('2xx', '3xx') AND NOT spoofed), 0) AS successes,
    coalesce(sum(visits) FILTER (WHERE status_class IN ('4xx', '5xx') AND NOT spoofed), 0) AS failures,
    coalesce(sum(bytes) FILTER (WHERE NOT spoofed), 0) AS bytes,
    coalesce(sum(visits) FILTER (WHERE spoofed), 0) AS spoofed"""
PATH_SUMS = """
    coalesce(sum(visits), 0) AS visits,
    coalesce(sum(visits) FILTER (WHERE verified), 0) AS verified_visits,
    coalesce(sum(visits) FILTER (WHERE status_class IN ('2xx', '3xx')), 0) AS successes,
    coalesce(sum(visits) FILTER (WHERE status_class IN ('4xx', '5xx')), 0) AS failures,
    coalesce(sum(bytes), 0) AS bytes,
    0 AS spoofed"""
HOURS = "hour >= %(start)s AND hour < %(end)s"
# Raw events are kept whole days; a day ahead of these is always there.
DAYS_AHEAD = 3
# Events may arrive 7 days late; their ids are remembered a day longer.
KEYS_KEPT = timedelta(days=8)
LATE_DAYS = 8
MAINTENANCE_LOCK = 0x7A1F_0001


class PostgresStore:
    def __init__(self, pool: aiopg.Pool) -> None:
        self._pool = pool

    async def record(self, organization_id: str, rows: list[Row]) -> int:
        if not rows:
            return 0
        async with transaction(self._pool) as cur:
            stored: int = await fetch_value(cur, RECORD, {"org": organization_id, "rows": dumps(rows).decode()})
        return stored

    async def logs(
        self, organization_id: str, filters: LogFilters, after: tuple[datetime, str] | None, limit: int
    ) -> list[Row]:
        params: dict[str, Any] = {"org": organization_id, "limit": limit, **filters.__dict__}
        conditions = ["organization_id = %(org)s::uuid"]
        conditions += [LOG_FILTERS[name] for name, value in filters.__dict__.items() if value is not None]
        if filters.status_class is not None:
            params["status_low"] = int(filters.status_class[0]) * 100
        if after is not None:
            conditions.append("(occurred_at, uid) < (%(after_at)s, %(after_uid)s)")
            params |= {"after_at": after[0], "after_uid": after[1]}
        async with cursor(self._pool) as cur:
            return await fetch_all(
                cur,
                f"SELECT uid, {NAMES}, received_at FROM events WHERE {' AND '.join(conditions)}"
                " ORDER BY occurred_at DESC, uid DESC LIMIT %(limit)s",
                params,
            )

    async def summary(self, organization_id: str, query: SummaryQuery) -> SummarySums:
        params = {"org": organization_id, "start": query.start, "end": query.end, "app": query.app_id,
                  "granularity": query.granularity}  # fmt: skip
        where = scope(query, HOURS)
        async with cursor(self._pool) as cur:
            totals = (await fetch_all(cur, f"SELECT {AGENT_SUMS} FROM agent_hourly WHERE {where}", params))[0]
            grouped = await self._grouped(cur, query, where, params)
            distinct = await fetch_value(cur, *distinct_paths(query, params))
            referrals = await fetch_all(
                cur, f"SELECT platform, sum(visits) AS visits FROM referral_hourly WHERE {where} GROUP BY 1", params
            )
            crawls = await fetch_all(
                cur,
                f"SELECT operator, sum(visits) AS visits FROM agent_hourly WHERE {where} AND NOT spoofed"
                " AND operator <> '' GROUP BY 1",
                params,
            )
        return SummarySums(
            totals=_sums(totals, None, None),
            series=[_sums(row, row["bucket"], row["grp"]) for row in grouped if row["bucket"] is not None],
            groups=[
                _sums(row, None, row["grp"]) for row in grouped if row["bucket"] is None and row["grp"] is not None
            ],
            distinct_paths=int(distinct),
            referrals={row["platform"]: int(row["visits"]) for row in referrals},
            crawls={row["operator"]: int(row["visits"]) for row in crawls},
        )

    @staticmethod
    async def _grouped(cur: Any, query: SummaryQuery, where: str, params: dict[str, Any]) -> list[Row]:
        """Sums per period (and group), and per group over the whole range."""
        table, sums = ("path_hourly", PATH_SUMS) if query.group_by == "path" else ("agent_hourly", AGENT_SUMS)
        bucket = "date_trunc(%(granularity)s, hour)"
        if query.group_by == "path" and by_whole_days(query):
            table, bucket = "path_daily", "date_trunc(%(granularity)s, day)"
            where = scope(query, "day >= %(start)s AND day < %(end)s")
        if query.group_by is None:
            return await fetch_all(
                cur, f"SELECT {bucket} AS bucket, NULL AS grp, {sums} FROM {table} WHERE {where} GROUP BY 1", params
            )
        group = GROUP_COLUMNS[query.group_by]
        return await fetch_all(
            cur,
            f"SELECT {bucket} AS bucket, {group} AS grp, {sums} FROM {table} WHERE {where}"
            f" GROUP BY GROUPING SETS (({bucket}, {group}), ({group}))",
            params,
        )

    async def maintain(self, now: datetime, retention_days: int) -> None:
        today = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        oldest_kept = today - timedelta(days=retention_days)
        async with transaction(self._pool) as cur:
            # One replica at a time: two CREATE ... IF NOT EXISTS of one name can still collide.
            await cur.execute("SELECT pg_advisory_xact_lock(%s)", (MAINTENANCE_LOCK,))
            for offset in range(-min(LATE_DAYS, retention_days), DAYS_AHEAD + 1):
                day = today + timedelta(days=offset)
                await cur.execute(
                    sql.SQL("CREATE TABLE IF NOT EXISTS {} PARTITION OF events FOR VALUES FROM (%s) TO (%s)").format(
                        sql.Identifier(partition_name(day))
                    ),
                    (day, day + timedelta(days=1)),
                )
            for name in await _partitions(cur):
                if name < partition_name(oldest_kept):
                    await cur.execute(sql.SQL("DROP TABLE {}").format(sql.Identifier(name)))
            for table in ("agent_hourly", "path_hourly", "referral_hourly"):
                await cur.execute(
                    sql.SQL("DELETE FROM {} WHERE hour < %s").format(sql.Identifier(table)), (oldest_kept,)
                )
            await cur.execute("DELETE FROM event_keys WHERE received_at < %s", (now - KEYS_KEPT,))


def scope(query: SummaryQuery, period: str) -> str:
    """The rows of the query's organization (and App) in `period`, a condition on the rollup's time."""
    app = " AND app_id = %(app)s" if query.app_id is not None else ""
    return f"organization_id = %(org)s::uuid AND {period}{app}"


def distinct_paths(query: SummaryQuery, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """How many paths the range saw: its whole days from `path_daily`, the hours before the first
    and after the last whole day from `path_hourly`, as one set."""
    first = (query.start + timedelta(hours=23)).replace(hour=0)
    last = query.end.replace(hour=0)
    if first >= last:
        return f"SELECT count(DISTINCT path) FROM path_hourly WHERE {scope(query, HOURS)}", params
    days = scope(query, "day >= %(first)s AND day < %(last)s")
    edges = scope(query, "(hour >= %(start)s AND hour < %(first)s OR hour >= %(last)s AND hour < %(end)s)")
    statement = (
        f"SELECT count(*) FROM (SELECT path FROM path_daily WHERE {days}"
        f" UNION SELECT path FROM path_hourly WHERE {edges}) p"
    )
    return statement, {**params, "first": first, "last": last}


def partition_name(day: datetime) -> str:
    return f"events_{day:%Y%m%d}"


async def _partitions(cur: Any) -> list[str]:
    rows = await fetch_all(
        cur,
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " WHERE i.inhparent = 'events'::regclass ORDER BY 1",
    )
    return [row["relname"] for row in rows]


def _sums(row: Row, bucket: datetime | None, group: Any) -> Sums:
    return Sums(
        bucket=bucket, group=None if group is None else str(group), visits=int(row["visits"]),
        verified_visits=int(row["verified_visits"]), successes=int(row["successes"]), failures=int(row["failures"]),
        bytes=int(row["bytes"]), spoofed=int(row["spoofed"]),
    )  # fmt: skip
