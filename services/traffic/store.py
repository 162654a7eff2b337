"""What the summary and the logs need of a store, whichever engine keeps the events.

Two implementations: PostgreSQL (store_postgres.py, the default) and ClickHouse (store_clickhouse.py),
chosen by AI_TRAFFIC_STORE. Both take the same rows (recording.py) and answer the same shapes;
summary.py turns a store's sums into the API's answer, so every rate is computed in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

# A stored event: the columns of the `events` table, by name.
Row = dict[str, Any]

STATUS_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx")


def status_class(status: int) -> str:
    return f"{status // 100}xx"


@dataclass(frozen=True)
class LogFilters:
    app_id: str | None = None
    host: str | None = None
    bot_id: str | None = None
    category: str | None = None
    verified: bool | None = None
    status_class: str | None = None
    path_prefix: str | None = None
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True)
class SummaryQuery:
    app_id: str | None
    start: datetime
    end: datetime
    granularity: str  # hour, day, week
    group_by: str | None  # bot, operator, category, path, statusClass, verified


def by_whole_days(query: SummaryQuery) -> bool:
    """Whether the path rollup by day answers the query: periods of days, the range whole days."""
    return query.granularity != "hour" and query.start.hour == 0 and query.end.hour == 0


class AgentSets:
    """The grouping sets one scan of an agent rollup answers, whichever the engine: the totals
    (`total`), visits per operator (`operator`, for crawl-to-refer), and unless the summary is by
    path, the sums per period and group (`series`) and per group (`group`). `bucket` and `group`
    are the engine's expressions of the period and the group."""

    def __init__(self, query: SummaryQuery, bucket: str, group: str | None) -> None:
        self.sets: dict[str, tuple[str, ...]] = {"total": (), "operator": ("operator",)}
        if query.group_by is None:
            self.sets["series"] = (bucket,)
        elif query.group_by != "path" and group is not None:
            self.sets |= {"series": (bucket, group), "group": (group,)}
        self.columns = list(dict.fromkeys(column for columns in self.sets.values() for column in columns))

    def clause(self) -> tuple[str, str]:
        """`GROUPING(...) AS grouping_set` to select, and the GROUP BY clause."""
        sets = ", ".join(f"({', '.join(columns)})" for columns in dict.fromkeys(self.sets.values()))
        return f"GROUPING({', '.join(self.columns)}) AS grouping_set", f"GROUPING SETS ({sets})"

    def split(self, rows: list[Row]) -> dict[str, list[Row]]:
        """The rows of each set, by GROUPING()'s answer: a bit for each column the set leaves out
        (two sets may be one: by operator, `group` and `operator`)."""
        masks = {name: self._mask(columns) for name, columns in self.sets.items()}
        found: dict[str, list[Row]] = {name: [] for name in self.sets}
        for row in rows:
            for name, mask in masks.items():
                if int(row["grouping_set"]) == mask:
                    found[name].append(row)
        return found

    def _mask(self, columns: tuple[str, ...]) -> int:
        return sum(1 << (len(self.columns) - 1 - i) for i, column in enumerate(self.columns) if column not in columns)


@dataclass(frozen=True)
class Sums:
    """Additive sums of a bucket (a period, a group, or both)."""

    bucket: datetime | None
    group: str | None
    visits: int
    verified_visits: int
    successes: int
    failures: int
    bytes: int
    spoofed: int = 0


@dataclass(frozen=True)
class SummarySums:
    totals: Sums
    series: list[Sums]  # per period (and group, when grouped)
    groups: list[Sums]  # per group over the whole range
    distinct_paths: int
    referrals: dict[str, int]  # platform -> referred visits
    crawls: dict[str, int]  # operator -> agent visits


class TrafficStore(Protocol):
    async def record(self, organization_id: str, rows: list[Row]) -> int:
        """Store the events whose id the organization never sent (durably, with their rollups);
        how many were new."""
        ...

    async def logs(
        self, organization_id: str, filters: LogFilters, after: tuple[datetime, str] | None, limit: int
    ) -> list[Row]:
        """Up to `limit` events, newest first, after the (occurredAt, uid) position `after`."""
        ...

    async def summary(self, organization_id: str, query: SummaryQuery) -> SummarySums: ...

    async def maintain(self, now: datetime, retention_days: int) -> None:
        """Make the partitions ahead of `now` and drop what is past the retention."""
        ...
