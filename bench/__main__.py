"""`make bench`: every benchmark, one after the other."""

from __future__ import annotations

from importlib import import_module

BENCHMARKS = (
    "bench.runs",
    "bench.site_pages",
    "bench.app_routes",
    "bench.route_candidates",
    "bench.personas",
    "bench.idempotency",
    "bench.search",
    "bench.search_replicas",
    "bench.reference",
    "bench.console",
    "bench.webhooks",
    "bench.answers",
    "bench.analytics",
    "bench.edge",
    "bench.simulations",
    "bench.traffic",
)

for name in BENCHMARKS:
    import_module(name).main()
