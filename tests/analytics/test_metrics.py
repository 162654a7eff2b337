"""The metric definitions: proportions with their Wilson interval, means with their sums, and
nothing divided by zero."""

from __future__ import annotations

from datetime import date

import pytest

from services.analytics import metrics
from services.analytics.report_query import bucket_end


@pytest.mark.parametrize(
    ("count", "total", "low", "high"),
    [
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 1, 0.2065, 1.0),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_the_wilson_interval_matches_published_values(count: int, total: int, low: float, high: float):
    found = metrics.wilson(count, total)
    assert found is not None
    assert found == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


@pytest.mark.parametrize(
    ("function", "args", "expected"),
    [
        (metrics.visibility, (3, 4), {"value": 0.75, "count": 3, "total": 4}),
        (metrics.visibility, (0, 0), {"value": None, "count": 0, "total": 0, "interval": None}),
        (
            metrics.share_of_voice,
            (2, 8),
            {"value": 0.25, "count": 2, "total": 8, "basis": "mentions of every tracked brand"},
        ),
        (metrics.citation_rate, (1, 2), {"value": 0.5, "count": 1, "total": 2}),
        (metrics.retrieved_share, (2, 2), {"value": 1.0, "count": 2, "total": 2}),
        (metrics.citation_share, (1, 5), {"value": 0.2, "count": 1, "total": 5}),
        (metrics.average_position, (7, 4), {"value": 1.75, "sum": 7, "count": 4}),
        (metrics.average_position, (0, 0), {"value": None, "sum": 0, "count": 0}),
        (
            metrics.sentiment,
            (1.5, 2, 1, 0),
            {"value": 0.5, "sum": 1.5, "count": 3, "labels": {"positive": 2, "neutral": 1, "negative": 0}},
        ),
    ],
)
def test_each_metric_carries_what_it_was_computed_from(function, args, expected):
    result = function(*args)
    assert {key: result[key] for key in expected} == expected
    if "total" in result and result["total"]:
        interval = result["interval"]
        assert interval["low"] <= result["value"] <= interval["high"]


def test_proportions_add_up_across_periods_by_their_counts():
    first, second = metrics.visibility(3, 10), metrics.visibility(1, 30)
    together = metrics.visibility(first["count"] + second["count"], first["total"] + second["total"])
    assert together["value"] == 0.1
    assert (first["value"] + second["value"]) / 2 != together["value"]


@pytest.mark.parametrize(("count", "total"), [(-1, 3), (4, 3), (1, 0)])
def test_an_impossible_proportion_is_refused(count: int, total: int):
    with pytest.raises(ValueError):
        metrics.proportion(count, total)


def test_change_is_the_difference_or_nothing():
    assert metrics.change(metrics.visibility(1, 2), metrics.visibility(1, 4)) == 0.25
    assert metrics.change(metrics.visibility(1, 2), metrics.visibility(0, 0)) is None


@pytest.mark.parametrize(
    ("start", "granularity", "end", "expected"),
    [
        ("2026-11-18", "day", "2026-12-31", "2026-11-19"),
        ("2026-11-16", "week", "2026-12-31", "2026-11-23"),
        ("2026-12-01", "month", "2027-03-01", "2027-01-01"),
        ("2026-11-01", "month", "2026-11-20", "2026-11-20"),
        ("2026-11-01", None, "2026-11-20", "2026-11-20"),
    ],
)
def test_a_bucket_ends_at_its_next_start_or_the_period_end(start: str, granularity, end: str, expected: str):
    assert bucket_end(date.fromisoformat(start), granularity, date.fromisoformat(end)) == date.fromisoformat(expected)
