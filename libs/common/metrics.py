"""Prometheus metrics shared by every part, and the `/metrics` endpoint.

Under gunicorn each worker is a process, so when PROMETHEUS_MULTIPROC_DIR is set the endpoint
aggregates every worker's samples (prometheus-client's multiprocess mode).
"""

from __future__ import annotations

import os

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

HTTP_REQUESTS = Counter(
    "http_requests_total",
    "HTTP requests answered, by route and status.",
    ["service", "method", "route", "status"],
)
HTTP_LATENCY = Histogram(
    "http_request_duration_seconds",
    "Time to answer an HTTP request, by route.",
    ["service", "method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)


def observe_request(service: str, method: str, route: str, status: int, seconds: float) -> None:
    HTTP_REQUESTS.labels(service, method, route, str(status)).inc()
    HTTP_LATENCY.labels(service, method, route).observe(seconds)


async def metrics_handler(request: web.Request) -> web.Response:
    """Prometheus text exposition of this process (or of all workers in multiprocess mode)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = REGISTRY
    response = web.Response(body=generate_latest(registry))
    response.content_type = CONTENT_TYPE_LATEST.split(";")[0]
    return response
