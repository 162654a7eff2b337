"""Prometheus metrics of the search service (served by libs/common/metrics.py's endpoint)."""

from __future__ import annotations

from prometheus_client import Histogram

INDEXING_LAG = Histogram(
    "search_indexing_lag_seconds",
    "Time from a content change (its event's occurredAt) until the document is searchable.",
    buckets=(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0),
)
