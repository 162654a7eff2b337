"""The ClickHouse store, for organizations whose traffic outgrows one PostgreSQL.

`events` is a MergeTree partitioned by month and ordered by organization, host and time, with a
TTL for the retention; materialized views add every inserted block to AggregatingMergeTree rollups
(by hour, and agents and paths by day too, as in PostgreSQL), which the summary reads. The SQL
speaks to an `Engine`: the official `clickhouse-connect` client in production
(`ClickHouseConnect`), the embedded engine of `chdb` in the suite (libs/local/chdb_engine.py),
so the same statements are run by both.

ClickHouse has no unique constraint: a batch's ids are looked up among the organization's events
of the last 8 days (the longest an event may be late, and a day) and only new ones inserted.
Two copies of one batch racing each other may both be stored; in the logs they are one row once
merged (ReplacingMergeTree by organization and id), in the rollups they count twice.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import orjson

from services.traffic.store import AgentSets, LogFilters, Row, SummaryQuery, SummarySums, Sums, by_whole_days

KEYS_KEPT = timedelta(days=8)
SETTINGS = " SETTINGS output_format_json_quote_64bit_integers = 0"
AGENT_KEY = "organization_id, app_id, hour, bot_id, operator, category, status_class, verified, spoofed"


class Engine(Protocol):
    async def query(self, sql: str, params: dict[str, Any]) -> bytes:
        """The answer of a SELECT as JSONEachRow."""
        ...

    async def command(self, sql: str) -> None: ...

    async def insert(self, table: str, rows: bytes) -> None:
        """Insert JSONEachRow `rows` into `table`."""
        ...


class ClickHouseConnect:
    """An `Engine` over clickhouse-connect's async client (HTTP interface)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    @classmethod
    async def connect(cls, url: str) -> ClickHouseConnect:
        import clickhouse_connect

        return cls(await clickhouse_connect.get_async_client(dsn=url))

    async def query(self, sql: str, params: dict[str, Any]) -> bytes:
        answer: bytes = await self._client.raw_query(sql, parameters=params, fmt="JSONEachRow")
        return answer

    async def command(self, sql: str) -> None:
        await self._client.command(sql)

    async def insert(self, table: str, rows: bytes) -> None:
        await self._client.raw_insert(table, insert_block=rows, fmt="JSONEachRow")

    async def close(self) -> None:
        await self._client.close()


def schema(retention_days: int) -> list[str]:
    """The tables and views, made when missing (the retention is the TTL they are made with)."""
    ttl = f"INTERVAL {int(retention_days)} DAY"
    return [
        f"""CREATE TABLE IF NOT EXISTS events (
            uid UUID, organization_id UUID, id String, occurred_at DateTime64(6, 'UTC'),
            received_at DateTime64(6, 'UTC') DEFAULT now64(6), source LowCardinality(String), app_id UUID,
            domain_id UUID, host String, path String, method LowCardinality(String), status UInt16,
            user_agent String, client_network String, referer Nullable(String), bytes Nullable(UInt64),
            duration_ms Nullable(Float64), kind LowCardinality(String), bot_id Nullable(String),
            claimed_bot_id Nullable(String), operator Nullable(String), category Nullable(String), verified Bool,
            matched_by Nullable(String), spoofed Bool, referral_platform Nullable(String)
        ) ENGINE = ReplacingMergeTree PARTITION BY toYYYYMM(occurred_at)
        ORDER BY (organization_id, host, occurred_at, id) TTL toDateTime(occurred_at) + {ttl}""",
        f"""CREATE TABLE IF NOT EXISTS agent_hourly (
            organization_id UUID, app_id UUID, hour DateTime('UTC'), bot_id String, operator String,
            category String, status_class String, verified Bool, spoofed Bool,
            visits SimpleAggregateFunction(sum, UInt64), bytes SimpleAggregateFunction(sum, UInt64)
        ) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(hour) ORDER BY ({AGENT_KEY}) TTL hour + {ttl}""",
        """CREATE MATERIALIZED VIEW IF NOT EXISTS agent_hourly_view TO agent_hourly AS
        SELECT organization_id, app_id, toStartOfHour(occurred_at) AS hour, ifNull(bot_id, '') AS bot_id,
               ifNull(operator, '') AS operator, ifNull(category, '') AS category,
               concat(toString(intDiv(status, 100)), 'xx') AS status_class, verified, spoofed,
               toUInt64(count()) AS visits, toUInt64(sum(ifNull(bytes, 0))) AS bytes
        FROM events WHERE kind = 'agent' GROUP BY ALL""",
        f"""CREATE TABLE IF NOT EXISTS agent_daily (
            organization_id UUID, app_id UUID, day DateTime('UTC'), bot_id String, operator String,
            category String, status_class String, verified Bool, spoofed Bool,
            visits SimpleAggregateFunction(sum, UInt64), bytes SimpleAggregateFunction(sum, UInt64)
        ) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(day) ORDER BY ({AGENT_KEY.replace("hour", "day")})
        TTL day + {ttl}""",
        """CREATE MATERIALIZED VIEW IF NOT EXISTS agent_daily_view TO agent_daily AS
        SELECT organization_id, app_id, toDateTime(toStartOfDay(occurred_at), 'UTC') AS day,
               ifNull(bot_id, '') AS bot_id, ifNull(operator, '') AS operator, ifNull(category, '') AS category,
               concat(toString(intDiv(status, 100)), 'xx') AS status_class, verified, spoofed,
               toUInt64(count()) AS visits, toUInt64(sum(ifNull(bytes, 0))) AS bytes
        FROM events WHERE kind = 'agent' GROUP BY ALL""",
        f"""CREATE TABLE IF NOT EXISTS path_hourly (
            organization_id UUID, app_id UUID, hour DateTime('UTC'), path String, status_class String, verified Bool,
            visits SimpleAggregateFunction(sum, UInt64), bytes SimpleAggregateFunction(sum, UInt64)
        ) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(hour)
        ORDER BY (organization_id, app_id, hour, path, status_class, verified) TTL hour + {ttl}""",
        """CREATE MATERIALIZED VIEW IF NOT EXISTS path_hourly_view TO path_hourly AS
        SELECT organization_id, app_id, toStartOfHour(occurred_at) AS hour, path,
               concat(toString(intDiv(status, 100)), 'xx') AS status_class, verified,
               toUInt64(count()) AS visits, toUInt64(sum(ifNull(bytes, 0))) AS bytes
        FROM events WHERE kind = 'agent' AND NOT spoofed GROUP BY ALL""",
        f"""CREATE TABLE IF NOT EXISTS path_daily (
            organization_id UUID, app_id UUID, day DateTime('UTC'), path String, status_class String, verified Bool,
            visits SimpleAggregateFunction(sum, UInt64), bytes SimpleAggregateFunction(sum, UInt64)
        ) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(day)
        ORDER BY (organization_id, app_id, day, path, status_class, verified) TTL day + {ttl}""",
        """CREATE MATERIALIZED VIEW IF NOT EXISTS path_daily_view TO path_daily AS
        SELECT organization_id, app_id, toDateTime(toStartOfDay(occurred_at), 'UTC') AS day, path,
               concat(toString(intDiv(status, 100)), 'xx') AS status_class, verified,
               toUInt64(count()) AS visits, toUInt64(sum(ifNull(bytes, 0))) AS bytes
        FROM events WHERE kind = 'agent' AND NOT spoofed GROUP BY ALL""",
        # The paths each App's agents requested each day, for distinct paths: duplicates of a key
        # left between merges do not change a distinct count.
        f"""CREATE TABLE IF NOT EXISTS app_path_daily (
            organization_id UUID, app_id UUID, day DateTime('UTC'), path String
        ) ENGINE = ReplacingMergeTree PARTITION BY toYYYYMM(day) ORDER BY (organization_id, app_id, day, path)
        TTL day + {ttl}""",
        """CREATE MATERIALIZED VIEW IF NOT EXISTS app_path_daily_view TO app_path_daily AS
        SELECT DISTINCT organization_id, app_id, toDateTime(toStartOfDay(occurred_at), 'UTC') AS day, path
        FROM events WHERE kind = 'agent' AND NOT spoofed""",
        f"""CREATE TABLE IF NOT EXISTS referral_hourly (
            organization_id UUID, app_id UUID, hour DateTime('UTC'), platform String,
            visits SimpleAggregateFunction(sum, UInt64)
        ) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(hour)
        ORDER BY (organization_id, app_id, hour, platform) TTL hour + {ttl}""",
        """CREATE MATERIALIZED VIEW IF NOT EXISTS referral_hourly_view TO referral_hourly AS
        SELECT organization_id, app_id, toStartOfHour(occurred_at) AS hour, ifNull(referral_platform, '') AS platform,
               toUInt64(count()) AS visits
        FROM events WHERE kind = 'referral' GROUP BY ALL""",
    ]


# Rollups added after others: filled from an older rollup when first made, since their views see
# only new inserts. (A block inserted meanwhile may be counted twice; distinct counts do not mind.)
BACKFILLS = {
    "app_path_daily": "INSERT INTO app_path_daily SELECT DISTINCT organization_id, app_id, day, path FROM path_daily",
}

LOG_FILTERS = {
    "app_id": "app_id = {app_id:UUID}",
    "host": "host = {host:String}",
    "bot_id": "bot_id = {bot_id:String}",
    "category": "category = {category:String}",
    "verified": "verified = {verified:Bool}",
    "status_class": "intDiv(status, 100) = {status_hundreds:UInt16}",
    "path_prefix": "startsWith(path, {path_prefix:String})",
    "start": "occurred_at >= {start:DateTime64(6, 'UTC')}",
    "end": "occurred_at < {end:DateTime64(6, 'UTC')}",
}
GROUP_COLUMNS = {
    "bot": "bot_id",
    "operator": "operator",
    "category": "category",
    "statusClass": "status_class",
    "verified": "if(verified, 'true', 'false')",
    "path": "path",
}
# Aliases differ from the rollups' columns: ClickHouse would read an alias named as a column in
# the other expressions (`spoofed` in the conditions) as the aggregate it names.
AGENT_SUMS = """
    sumIf(visits, NOT spoofed) AS n_visits, sumIf(visits, verified AND NOT spoofed) AS n_verified,
    sumIf(visits, status_class IN ('2xx', '3xx') AND NOT spoofed) AS n_successes,
    sumIf(visits, status_class IN ('4xx', '5xx') AND NOT spoofed) AS n_failures,
    sumIf(bytes, NOT spoofed) AS n_bytes, sumIf(visits, spoofed) AS n_spoofed"""
PATH_SUMS = """
    sum(visits) AS n_visits, sumIf(visits, verified) AS n_verified,
    sumIf(visits, status_class IN ('2xx', '3xx')) AS n_successes,
    sumIf(visits, status_class IN ('4xx', '5xx')) AS n_failures, sum(bytes) AS n_bytes, toUInt64(0) AS n_spoofed"""
BUCKETS = {"hour": "hour", "day": "toStartOfDay(hour)", "week": "toMonday(hour)"}
HOURS = "hour >= {start:DateTime('UTC')} AND hour < {end:DateTime('UTC')}"
DAYS = "day >= {start:DateTime('UTC')} AND day < {end:DateTime('UTC')}"
EMPTY = "''"


def when(moment: datetime) -> str:
    """A time as ClickHouse parses a DateTime64 parameter: UTC, without a zone."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def hour_of(moment: datetime) -> str:
    """A whole hour as ClickHouse parses a DateTime parameter."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _rows(answer: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in answer.splitlines() if line.strip()]


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


class ClickHouseStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._ready = False

    async def maintain(self, now: datetime, retention_days: int) -> None:
        """Make the tables and views if missing; partitions and retention are ClickHouse's (TTL)."""
        if not self._ready:
            made = {
                row["name"]
                for row in _rows(
                    await self._engine.query("SELECT name FROM system.tables WHERE database = currentDatabase()", {})
                )
            }
            for statement in schema(retention_days):
                await self._engine.command(statement)
            for table, backfill in BACKFILLS.items():
                if table not in made:
                    await self._engine.command(backfill)
            self._ready = True

    async def record(self, organization_id: str, rows: list[Row]) -> int:
        if not rows:
            return 0
        oldest = min(row["occurred_at"] for row in rows) - KEYS_KEPT
        known = _rows(
            await self._engine.query(
                "SELECT DISTINCT id FROM events WHERE organization_id = {org:UUID}"
                " AND occurred_at >= {oldest:DateTime64(6, 'UTC')} AND id IN {ids:Array(String)}",
                {"org": organization_id, "oldest": when(oldest), "ids": [row["id"] for row in rows]},
            )
        )
        seen = {row["id"] for row in known}
        fresh = [row for row in rows if row["id"] not in seen]
        if fresh:
            body = b"\n".join(orjson.dumps(_stored(organization_id, row)) for row in fresh)
            await self._engine.insert("events", body)
        return len(fresh)

    async def logs(
        self, organization_id: str, filters: LogFilters, after: tuple[datetime, str] | None, limit: int
    ) -> list[Row]:
        params: dict[str, Any] = {"org": organization_id, "limit": limit}
        conditions = ["organization_id = {org:UUID}"]
        for name, value in filters.__dict__.items():
            if value is not None:
                conditions.append(LOG_FILTERS[name])
                params[name] = when(value) if isinstance(value, datetime) else value
        if filters.status_class is not None:
            params["status_hundreds"] = int(filters.status_class[0])
        if after is not None:
            conditions.append("(occurred_at, uid) < ({after_at:DateTime64(6, 'UTC')}, {after_uid:UUID})")
            params |= {"after_at": when(after[0]), "after_uid": after[1]}
        answer = await self._engine.query(
            f"SELECT * FROM events FINAL WHERE {' AND '.join(conditions)}"
            " ORDER BY occurred_at DESC, uid DESC LIMIT {limit:UInt32}" + SETTINGS,
            params,
        )
        return [_log_row(row) for row in _rows(answer)]

    async def summary(self, organization_id: str, query: SummaryQuery) -> SummarySums:
        """Three statements (four by path): one scan of an agent rollup for the totals, the visits
        per operator and the series and groups, as in PostgreSQL (AgentSets); the paths' by path;
        the distinct paths; the referrals. Whole days by day or week read the daily rollups."""
        params: dict[str, Any] = {"org": organization_id, "start": hour_of(query.start), "end": hour_of(query.end)}
        if query.app_id is not None:
            params["app"] = query.app_id
        daily = by_whole_days(query)
        bucket = BUCKETS[query.granularity].replace("hour", "day") if daily else BUCKETS[query.granularity]
        group = GROUP_COLUMNS[query.group_by] if query.group_by not in (None, "path") else None
        sets = AgentSets(query, bucket, group)
        grouping, group_by = sets.clause()
        table, where = ("agent_daily", DAYS) if daily else ("agent_hourly", HOURS)
        period = f"toString({bucket})" if bucket in sets.columns else EMPTY
        found = sets.split(
            _rows(
                await self._engine.query(
                    f"SELECT {grouping}, {period} AS bucket, {group or EMPTY} AS grp, operator, {AGENT_SUMS}"
                    f" FROM {table} WHERE {scope(query, where)} GROUP BY {group_by}" + SETTINGS,
                    params,
                )
            )
        )
        series, groups = found.get("series", []), found.get("group", [])
        if query.group_by == "path":
            path_table, where = ("path_daily", DAYS) if daily else ("path_hourly", HOURS)
            paths = _rows(
                await self._engine.query(
                    f"SELECT grouping({bucket}) AS whole, toString({bucket}) AS bucket, path AS grp, {PATH_SUMS}"
                    f" FROM {path_table} WHERE {scope(query, where)} GROUP BY GROUPING SETS (({bucket}, path), (path))"
                    + SETTINGS,
                    params,
                )
            )
            series = [row for row in paths if not int(row["whole"])]
            groups = [row for row in paths if int(row["whole"])]
        distinct = _rows(await self._engine.query(*self._distinct_paths(query, params)))
        referrals = _rows(
            await self._engine.query(
                f"SELECT platform, sum(visits) AS n_visits FROM referral_hourly WHERE {scope(query, HOURS)}"
                " GROUP BY platform" + SETTINGS,
                params,
            )
        )
        return SummarySums(
            totals=_sums(found["total"][0], None, None),
            series=[_sums(row, _time(row["bucket"]), row["grp"] if query.group_by else None) for row in series],
            groups=[_sums(row, None, row["grp"]) for row in groups],
            distinct_paths=int(distinct[0]["n"]),
            referrals={row["platform"]: int(row["n_visits"]) for row in referrals},
            crawls={row["operator"]: int(row["n_visits"]) for row in found["operator"] if row["operator"]},
        )

    @staticmethod
    def _distinct_paths(query: SummaryQuery, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """As in PostgreSQL: whole days from `app_path_daily`, the hours around them from `path_hourly`."""
        first = (query.start + timedelta(hours=23)).replace(hour=0)
        last = query.end.replace(hour=0)
        if first >= last:
            return f"SELECT uniqExact(path) AS n FROM path_hourly WHERE {scope(query, HOURS)}" + SETTINGS, params
        days = scope(query, "day >= {first:DateTime('UTC')} AND day < {last:DateTime('UTC')}")
        edges = scope(
            query,
            "(hour >= {start:DateTime('UTC')} AND hour < {first:DateTime('UTC')}"
            " OR hour >= {last:DateTime('UTC')} AND hour < {end:DateTime('UTC')})",
        )
        statement = (
            f"SELECT uniqExact(path) AS n FROM (SELECT path FROM app_path_daily WHERE {days}"
            f" UNION ALL SELECT path FROM path_hourly WHERE {edges})" + SETTINGS
        )
        return statement, {**params, "first": hour_of(first), "last": hour_of(last)}


def scope(query: SummaryQuery, period: str) -> str:
    app = " AND app_id = {app:UUID}" if query.app_id is not None else ""
    return f"organization_id = {{org:UUID}} AND {period}{app}"


def _stored(organization_id: str, row: Row) -> dict[str, Any]:
    return {
        **row,
        "uid": str(uuid.uuid4()),
        "organization_id": organization_id,
        "occurred_at": when(row["occurred_at"]),
    }


def _log_row(row: dict[str, Any]) -> Row:
    return row | {"occurred_at": _time(row["occurred_at"]), "received_at": _time(row["received_at"])}


def _sums(row: dict[str, Any], bucket: datetime | None, group: Any) -> Sums:
    return Sums(
        bucket=bucket,
        group=None if group is None else str(group),
        visits=int(row["n_visits"]),
        verified_visits=int(row["n_verified"]),
        successes=int(row["n_successes"]),
        failures=int(row["n_failures"]),
        bytes=int(row["n_bytes"]),
        spoofed=int(row["n_spoofed"]),
    )
