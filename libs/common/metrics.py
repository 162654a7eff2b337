"""Prometheus metrics shared by every part, and the listener that serves them.

`/metrics` is never on a part's public port: gunicorn's master serves it on a port of its own
(METRICS_BIND, see deploy/gunicorn_conf.py), which only the monitoring namespace may reach.
Under gunicorn each worker is a process, so with PROMETHEUS_MULTIPROC_DIR set the listener
aggregates every worker's samples (prometheus-client's multiprocess mode); the process figures
(CPU, memory, open files), which that mode cannot aggregate, are read from /proc for the master
and each live worker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

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

UPSTREAM_FAILURES = Counter(
    "upstream_failures_total",
    "Calls to another part that failed: refused (nothing listens), unreachable (dropped), timeout, "
    "or not_ready (it answered 503), by the route being served and the upstream's address.",
    ["route", "upstream", "kind"],
)
UPSTREAM_RETRIES = Counter(
    "upstream_retries_total",
    "Requests sent to another part a second time, on a fresh connection, because the first connection "
    "was refused or reset before any answer (a worker that died); only requests that merely read.",
    ["route", "upstream"],
)
# Which part a sample is of comes from the scrape target (the pod's app.kubernetes.io/name).
DB_POOL_IN_USE = Gauge("db_pool_connections_in_use", "Database connections lent out.", multiprocess_mode="livesum")
DB_POOL_WAITING = Gauge(
    "db_pool_waiting", "Requests waiting for a free database connection.", multiprocess_mode="livesum"
)
REDIS_ERRORS = Counter("redis_errors_total", "Redis operations that failed, by what was attempted.", ["operation"])
REDIS_OPERATIONS = (
    "request",
    "ratelimit_sync",
    "events_publish",
    "events_read",
    "indexing_lag",
    "readiness",
    "audit_publish",
)
for _operation in REDIS_OPERATIONS:  # every series exists from the start, so rate() sees the first error
    REDIS_ERRORS.labels(_operation)


# The labelled series of each (service, method, route, status) seen: a lookup, not two `labels()`
# calls, per request. Bounded: a client's invented methods only make it start again.
_SERIES: dict[tuple[str, str, str, int], tuple[Any, Any]] = {}
_SERIES_MAX = 10_000


def observe_request(service: str, method: str, route: str, status: int, seconds: float) -> None:
    key = (service, method, route, status)
    series = _SERIES.get(key)
    if series is None:
        if len(_SERIES) >= _SERIES_MAX:
            _SERIES.clear()
        series = _SERIES[key] = (
            HTTP_REQUESTS.labels(service, method, route, str(status)),
            HTTP_LATENCY.labels(service, method, route),
        )
    series[0].inc()
    series[1].observe(seconds)


def multiprocess() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


class ProcessGroupCollector(Collector):
    """CPU seconds, resident memory and open files of a group of processes (a gunicorn master and
    its workers), summed, with the names prometheus-client's own process collector uses."""

    def __init__(self, pids: Callable[[], Iterable[int]]) -> None:
        self._pids = pids
        self._ticks = os.sysconf("SC_CLK_TCK")
        self._page = os.sysconf("SC_PAGE_SIZE")

    def _read(self, pid: int) -> tuple[float, int, int] | None:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                # Fields after the command name, which is in parentheses and may hold spaces.
                fields = stat.read().rpartition(b")")[2].split()
            open_fds = len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:  # the process ended between listing and reading
            return None
        cpu = (float(fields[11]) + float(fields[12])) / self._ticks
        return cpu, int(fields[21]) * self._page, open_fds

    def collect(self) -> Iterator[Metric]:
        samples = [sample for sample in map(self._read, self._pids()) if sample is not None]
        yield CounterMetricFamily(
            "process_cpu_seconds", "CPU time of the master and its workers.", value=sum(s[0] for s in samples)
        )
        yield GaugeMetricFamily(
            "process_resident_memory_bytes",
            "Resident memory of the master and its workers.",
            sum(s[1] for s in samples),
        )
        yield GaugeMetricFamily(
            "process_open_fds", "Open file descriptors of the master and its workers.", sum(s[2] for s in samples)
        )
        yield GaugeMetricFamily("process_workers", "Live worker processes.", max(len(samples) - 1, 0))


def registry(pids: Callable[[], Iterable[int]] | None = None) -> CollectorRegistry:
    """What the metrics listener exposes: every worker's samples in multiprocess mode (plus the
    process group's figures when `pids` lists it), else this process's registry."""
    if not multiprocess():
        return REGISTRY
    aggregated = CollectorRegistry()
    MultiProcessCollector(aggregated)  # type: ignore[no-untyped-call]
    if pids is not None:
        aggregated.register(ProcessGroupCollector(pids))
    return aggregated


def serve_metrics(bind: str, pids: Callable[[], Iterable[int]] | None = None) -> None:
    """Serve `/metrics` on `bind` ("host:port") from a thread of this process."""
    host, _, port = bind.rpartition(":")
    start_http_server(int(port), host or "0.0.0.0", registry=registry(pids))
