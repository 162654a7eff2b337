"""The AI-traffic summary's answer, from a store's sums: the one place its rates are defined, as
`computed` fields of the summary's shapes (libs/common/shapes.py), which its response schemas
declare.

- success rate: answers 2xx or 3xx among the visits; failure rate: 4xx or 5xx among the visits;
- visits count agents' requests, not spoofed claims (`spoofedVisits`), nor referrals;
- crawl-to-refer, per answer engine: visits of its operator's agents per human it referred.
Periods are closed-open `[from, to)` in UTC, whole hours; days start at 00:00 UTC, weeks on Monday.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from libs.common.ratios import ratio
from libs.common.shapes import Shape
from services.traffic import schemas
from services.traffic.catalog import Catalog
from services.traffic.store import SummaryQuery, SummarySums, Sums

STEPS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
# The largest groups answered (by visits over the whole period); each period's groups are among them.
TOP_GROUPS = 100


def period_start(moment: datetime, granularity: str) -> datetime:
    """The start of the UTC hour, day or (Monday) week holding `moment`."""
    start = moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    if granularity != "hour":
        start = start.replace(hour=0)
    if granularity == "week":
        start -= timedelta(days=start.weekday())
    return start


# The shapes of sums read a `Sums` as a row (`vars(sums)`: its fields by name).
RATES = {
    "success_rate": lambda sums: ratio(sums["successes"], sums["visits"]),
    "failure_rate": lambda sums: ratio(sums["failures"], sums["visits"]),
}
GROUP = Shape(schemas.TrafficGroup, computed={"key": lambda sums: sums["group"] or "", **RATES})
POINT = Shape(schemas.TrafficPoint, computed=RATES)
TOTALS = Shape(schemas.TrafficTotals, computed={"spoofed_visits": lambda sums: sums["spoofed"], **RATES})
REFERRAL = Shape(
    schemas.TrafficReferral, computed={"crawl_to_refer": lambda row: ratio(row["crawls"], row["referrals"])}
)
PERIOD = Shape(schemas.TrafficPeriod)
SUMMARY = Shape(schemas.TrafficSummary)


def _group(sums: Sums) -> dict[str, Any]:
    return GROUP.of(vars(sums))


def shape(query: SummaryQuery, found: SummarySums, catalog: Catalog) -> dict[str, Any]:
    groups = sorted((g for g in found.groups if g.visits), key=lambda g: (-g.visits, g.group or ""))[:TOP_GROUPS]
    shown = {g.group for g in groups}
    by_bucket: dict[datetime, list[Sums]] = {}
    for sums in found.series:
        assert sums.bucket is not None
        by_bucket.setdefault(sums.bucket.astimezone(UTC), []).append(sums)
    series = []
    step = STEPS[query.granularity]
    bucket = period_start(query.start, query.granularity)
    while bucket < query.end:
        found_here = [s for s in by_bucket.get(bucket, []) if s.visits]
        total = _add(found_here, bucket)
        found_here = [s for s in found_here if s.group in shown]
        point = {**vars(total), "start": max(bucket, query.start), "end": min(bucket + step, query.end)}
        point["groups"] = (
            []
            if query.group_by is None
            else [_group(s) for s in sorted(found_here, key=lambda s: (-s.visits, s.group or ""))]
        )
        series.append(POINT.of(point))
        bucket += step
    referrals = []
    for referrer in catalog.referrers:
        referred = found.referrals.get(referrer.platform, 0)
        crawls = found.crawls.get(referrer.operator, 0)
        if referred or crawls:
            row = {
                "platform": referrer.platform,
                "name": referrer.name,
                "operator": referrer.operator,
                "referrals": referred,
                "crawls": crawls,
            }
            referrals.append(REFERRAL.of(row))
    period = {
        "from_": query.start,
        "to": query.end,
        "bounds": "[from, to)",
        "time_zone": "UTC",
        "granularity": query.granularity,
        "week_starts": "monday",
    }
    return SUMMARY.of(
        {
            "app_id": query.app_id,
            "period": PERIOD.of(period),
            "group_by": query.group_by,
            "totals": TOTALS.of({**vars(found.totals), "distinct_paths": found.distinct_paths}),
            "groups": [_group(g) for g in groups],
            "series": series,
            "referrals": referrals,
        }
    )


def _add(parts: list[Sums], bucket: datetime) -> Sums:
    return Sums(
        bucket=bucket,
        group=None,
        visits=sum(p.visits for p in parts),
        verified_visits=sum(p.verified_visits for p in parts),
        successes=sum(p.successes for p in parts),
        failures=sum(p.failures for p in parts),
        bytes=sum(p.bytes for p in parts),
    )
