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
from services.traffic.store import AgentSets, LogFilters, Row, SummaryQuery, SummarySums, Sums, by_whole_days

COLUMNS = (
    ("id", "text"),
    ("occurred_at", "timestamptz"),
    ("source", "text"),
    ("app_id", "uuid"),
    ("domain_id", "uuid"),
    ("host", "text"),
    ("path", "text"),
    ("method", "text"),
    ("status", "smallint"),
    ("user_agent", "text"),
    ("client_network", "cidr"),
    ("referer", "text"),
    ("bytes", "bigint"),
    ("duration_ms", "double precision"),
    ("kind", "text"),
    ("bot_id", "text"),
    ("claimed_bot_id", "text"),
    ("operator", "text"),
    ("category", "text"),
    ("verified", "boolean"),
    ("matched_by", "text"),
    ("spoofed", "boolean"),
    ("referral_platform", "text"),
)
NAMES = ", ".join(name for name, _ in COLUMNS)
STATUS_CLASS = "(s.status / 100)::text || 'xx'"


def agent_rollup(table: str, period: str) -> str:
    """The insert adding a batch's agent requests to an agent rollup by `period`."""
    return f"""
    INSERT INTO {table} AS r
        (organization_id, app_id, {period}, bot_id, operator, category, status_class, verified, spoofed, visits, bytes)
    SELECT %(org)s::uuid, app_id, date_trunc('{period}', occurred_at), coalesce(bot_id, ''), coalesce(operator, ''),
           coalesce(category, ''), {STATUS_CLASS}, verified, spoofed, count(*), coalesce(sum(bytes), 0)
    FROM stored s WHERE kind = 'agent' GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    ON CONFLICT (organization_id, app_id, {period}, bot_id, operator, category, status_class, verified, spoofed)
    DO UPDATE SET visits = r.visits + excluded.visits, bytes = r.bytes + excluded.bytes"""


def path_rollup(table: str, period: str) -> str:
    """The insert adding a batch's agent requests (spoofed claims aside) to a path rollup by `period`."""
    return f"""
    INSERT INTO {table} AS r (organization_id, app_id, {period}, path, status_class, verified, visits, bytes)
    SELECT %(org)s::uuid, app_id, date_trunc('{period}', occurred_at), path, {STATUS_CLASS}, verified, count(*),
           coalesce(sum(bytes), 0)
    FROM stored s WHERE kind = 'agent' AND NOT spoofed GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (organization_id, app_id, {period}, path, status_class, verified)
    DO UPDATE SET visits = r.visits + excluded.visits, bytes = r.bytes + excluded.bytes"""


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
), agents AS ({agent_rollup("agent_hourly", "hour")}
), agent_days AS ({agent_rollup("agent_daily", "day")}
), paths AS ({path_rollup("path_hourly", "hour")}
), path_days AS ({path_rollup("path_daily", "day")}
), app_paths AS (
    INSERT INTO app_path_daily (organization_id, app_id, day, path)
    SELECT DISTINCT %(org)s::uuid, app_id, date_trunc('day', occurred_at), path
    FROM stored WHERE kind = 'agent' AND NOT spoofed ORDER BY 1, 2, 3, 4
    ON CONFLICT DO NOTHING
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
DAYS = "day >= %(start)s AND day < %(end)s"
# Every rollup, with its time column: retention deletes their rows past it.
ROLLUPS = (
    ("agent_hourly", "hour"),
    ("agent_daily", "day"),
    ("path_hourly", "hour"),
    ("path_daily", "day"),
    ("app_path_daily", "day"),
    ("referral_hourly", "hour"),
)
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
        params = summary_params(organization_id, query)
        statements = summary_statements(query)
        async with cursor(self._pool) as cur:
            found = {name: await fetch_all(cur, statement, params) for name, statement in statements.items()}
        by_set = agent_sets(query)[0].split(found["agents"])
        series, groups = by_set.get("series", []), by_set.get("group", [])
        if "paths" in found:
            series = [row for row in found["paths"] if row["bucket"] is not None]
            groups = [row for row in found["paths"] if row["bucket"] is None]
        return SummarySums(
            totals=_sums(by_set["total"][0], None, None),
            series=[_sums(row, row["bucket"], row["grp"]) for row in series],
            groups=[_sums(row, None, row["grp"]) for row in groups],
            distinct_paths=int(found["distinct"][0]["count"]),
            referrals={row["platform"]: int(row["visits"]) for row in found["referrals"]},
            crawls={row["operator"]: int(row["visits"]) for row in by_set["operator"] if row["operator"]},
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
            for table, period in ROLLUPS:
                await cur.execute(
                    sql.SQL("DELETE FROM {} WHERE {} < %s").format(sql.Identifier(table), sql.Identifier(period)),
                    (oldest_kept,),
                )
            await cur.execute("DELETE FROM event_keys WHERE received_at < %s", (now - KEYS_KEPT,))


def scope(query: SummaryQuery, period: str) -> str:
    """The rows of the query's organization (and App) in `period`, a condition on the rollup's time."""
    app = " AND app_id = %(app)s" if query.app_id is not None else ""
    return f"organization_id = %(org)s::uuid AND {period}{app}"


def summary_params(organization_id: str, query: SummaryQuery) -> dict[str, Any]:
    first = (query.start + timedelta(hours=23)).replace(hour=0)
    return {
        "org": organization_id,
        "start": query.start,
        "end": query.end,
        "app": query.app_id,
        "granularity": query.granularity,
        "first": first,
        "last": query.end.replace(hour=0),
    }


def agent_sets(query: SummaryQuery) -> tuple[AgentSets, str]:
    """The agent rollup's grouping sets and their statement: whole days by day or week read the
    daily rollup."""
    daily = by_whole_days(query)
    table, where = ("agent_daily", DAYS) if daily else ("agent_hourly", HOURS)
    bucket = f"date_trunc(%(granularity)s, {'day' if daily else 'hour'})"
    group = GROUP_COLUMNS[query.group_by] if query.group_by not in (None, "path") else None
    sets = AgentSets(query, bucket, group)
    grouping, group_by = sets.clause()
    statement = (
        f"SELECT {grouping}, {bucket if bucket in sets.columns else 'NULL::timestamptz'} AS bucket,"
        f" {group or 'NULL'} AS grp, operator, {AGENT_SUMS} FROM {table} WHERE {scope(query, where)}"
        f" GROUP BY {group_by}"
    )
    return sets, statement


def summary_statements(query: SummaryQuery) -> dict[str, str]:
    """The statements of a summary, by name, on `summary_params`: one scan of an agent rollup, the
    paths' when by path, the distinct paths and the referrals."""
    statements = {"agents": agent_sets(query)[1]}
    if query.group_by == "path":
        table, bucket, where = "path_hourly", "date_trunc(%(granularity)s, hour)", HOURS
        if by_whole_days(query):
            table, bucket, where = "path_daily", "date_trunc(%(granularity)s, day)", DAYS
        statements["paths"] = (
            f"SELECT {bucket} AS bucket, path AS grp, {PATH_SUMS} FROM {table} WHERE {scope(query, where)}"
            f" GROUP BY GROUPING SETS (({bucket}, path), (path))"
        )
    statements["distinct"] = distinct_paths(query)
    statements["referrals"] = (
        f"SELECT platform, sum(visits) AS visits FROM referral_hourly WHERE {scope(query, HOURS)} GROUP BY 1"
    )
    return statements


def distinct_paths(query: SummaryQuery) -> str:
    """How many paths the range saw: its whole days from `app_path_daily` (one row a path and day,
    read from its key), the hours before the first and after the last whole day from `path_hourly`,
    as one set."""
    first = (query.start + timedelta(hours=23)).replace(hour=0)
    if first >= query.end.replace(hour=0):
        return f"SELECT count(DISTINCT path) FROM path_hourly WHERE {scope(query, HOURS)}"
    days = scope(query, "day >= %(first)s AND day < %(last)s")
    edges = scope(query, "(hour >= %(start)s AND hour < %(first)s OR hour >= %(last)s AND hour < %(end)s)")
    return (
        f"SELECT count(*) FROM (SELECT path FROM app_path_daily WHERE {days}"
        f" UNION SELECT path FROM path_hourly WHERE {edges}) p"
    )


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
        bucket=bucket,
        group=None if group is None else str(group),
        visits=int(row["visits"]),
        verified_visits=int(row["verified_visits"]),
        successes=int(row["successes"]),
        failures=int(row["failures"]),
        bytes=int(row["bytes"]),
        spoofed=int(row["spoofed"]),
    )
