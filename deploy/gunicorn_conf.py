"""gunicorn settings every part shares (`--config deploy/gunicorn_conf.py`).

The master serves `/metrics` on METRICS_BIND ("host:port"), apart from the public port, and
forgets a worker's live gauges when the worker exits (prometheus-client's multiprocess mode).
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import multiprocess

from libs.common.http_client import PART_KEEPALIVE_SECONDS
from libs.common.metrics import serve_metrics

# An idle connection is closed after this; callers keep theirs for less (libs/common/http_client.py).
keepalive = PART_KEEPALIVE_SECONDS


def when_ready(server: Any) -> None:
    bind = os.environ.get("METRICS_BIND")
    if bind:
        serve_metrics(bind, lambda: [os.getpid(), *server.WORKERS])
        server.log.info("metrics on %s", bind)


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
