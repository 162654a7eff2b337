"""The AI-traffic summary's answer, from a store's sums: the one place its rates are defined.

- success rate: answers 2xx or 3xx among the visits; failure rate: 4xx or 5xx among the visits;
- visits count agents' requests, not spoofed claims (`spoofedVisits`), nor referrals;
- crawl-to-refer, per answer engine: visits of its operator's agents per human it referred.
Periods are closed-open `[from, to)` in UTC, whole hours; days start at 00:00 UTC, weeks on Monday.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from libs.common.ratios import ratio
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


def metrics(sums: Sums) -> dict[str, Any]:
    return {
        "visits": sums.visits,
        "verifiedVisits": sums.verified_visits,
        "successRate": ratio(sums.successes, sums.visits),
        "failureRate": ratio(sums.failures, sums.visits),
        "bytes": sums.bytes,
    }


def _group(sums: Sums) -> dict[str, Any]:
    return {"key": sums.group or "", **metrics(sums)}


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
        point = {"start": max(bucket, query.start), "end": min(bucket + step, query.end), **metrics(total)}
        point["groups"] = (
            []
            if query.group_by is None
            else [_group(s) for s in sorted(found_here, key=lambda s: (-s.visits, s.group or ""))]
        )
        series.append(point)
        bucket += step
    referrals = []
    for referrer in catalog.referrers:
        referred = found.referrals.get(referrer.platform, 0)
        crawls = found.crawls.get(referrer.operator, 0)
        if referred or crawls:
            referrals.append({
                "platform": referrer.platform, "name": referrer.name, "operator": referrer.operator,
                "referrals": referred, "crawls": crawls, "crawlToRefer": ratio(crawls, referred),
            })  # fmt: skip
    return {
        "appId": query.app_id,
        "period": {
            "from": query.start,
            "to": query.end,
            "bounds": "[from, to)",
            "timeZone": "UTC",
            "granularity": query.granularity,
            "weekStarts": "monday",
        },  # fmt: skip
        "groupBy": query.group_by,
        "totals": {
            **metrics(found.totals),
            "distinctPaths": found.distinct_paths,
            "spoofedVisits": found.totals.spoofed,
        },
        "groups": [_group(g) for g in groups],
        "series": series,
        "referrals": referrals,
    }


def _add(parts: list[Sums], bucket: datetime) -> Sums:
    return Sums(bucket=bucket, group=None, visits=sum(p.visits for p in parts),
                verified_visits=sum(p.verified_visits for p in parts), successes=sum(p.successes for p in parts),
                failures=sum(p.failures for p in parts), bytes=sum(p.bytes for p in parts))  # fmt: skip
