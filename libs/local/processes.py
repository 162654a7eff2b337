"""The parts as processes on one machine: each under gunicorn with aiohttp's uvloop worker, in a
session of its own, with its own database role, the others' addresses and its metrics listener.

`start` launches them, `wait_ready` waits for each one's /readyz, and `stop` stops them gracefully
(SIGTERM, then SIGKILL after the grace period). `make run` (deploy/run.py), the end-to-end and
reliability tests and the benchmarks run the product this way.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from libs.common.bootstrap import part_dsn
from libs.contract.parts import METRICS_PORT_OFFSET, PARTS, ROOT, Part
from libs.local.stores import DATA

GRACE_SECONDS = 15.0
READY_TIMEOUT_SECONDS = 60.0
LOG_TAIL_LINES = 30
HOST = "127.0.0.1"


def log(message: str) -> None:
    print(f"[run] {message}", file=sys.stderr, flush=True)


def gunicorn_command(part: Part, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        part.app,
        "--bind",
        f"{HOST}:{port}",
        "--worker-class",
        "aiohttp.GunicornUVLoopWebWorker",
        "--workers",
        str(part.workers),
        "--graceful-timeout",
        "10",
        "--chdir",
        str(ROOT),
        "--no-control-socket",  # one per master at a shared default path: parts would collide
        "--config",
        str(ROOT / "deploy/gunicorn_conf.py"),  # the metrics listener
        "--log-config-json",
        str(ROOT / "deploy/gunicorn-logging.json"),
    ]


def part_environ(
    base: Mapping[str, str], part: Part, ports: Mapping[str, int], metrics_port: int | None = None
) -> dict[str, str]:
    """A part's environment: its own database role, the services' addresses, a metrics directory
    and the metrics listener's address (default: its public port + METRICS_PORT_OFFSET)."""
    environ = dict(base)
    environ["DATABASE_URL"] = part_dsn(base["DATABASE_URL"], part)
    for other in PARTS:
        environ.setdefault(f"{other.name.upper()}_URL", f"http://{HOST}:{ports[other.name]}")
    metrics = DATA / "metrics" / f"{part.name}-{ports[part.name]}"
    shutil.rmtree(metrics, ignore_errors=True)
    metrics.mkdir(parents=True)
    environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics)
    environ["METRICS_BIND"] = f"{HOST}:{metrics_port or ports[part.name] + METRICS_PORT_OFFSET}"
    # Webhook receivers on the developer's machine work out of the box: plain http, loopback.
    environ.setdefault("WEBHOOK_ALLOW_HTTP", "true")
    environ.setdefault("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8, ::1/128")
    # Likewise an App's origin on the developer's machine.
    environ.setdefault("EDGE_ORIGIN_ALLOWED_NETWORKS", "127.0.0.0/8, ::1/128")
    return environ


@dataclass
class Running:
    part: Part
    port: int
    process: subprocess.Popen[bytes]
    log: Path | None = None  # the file its output goes to, if any

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        if self.log is None:
            return ""
        try:
            tail = self.log.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return "; the end of its log ({}):\n{}".format(self.log, "\n".join(tail))


def start(
    parts: Iterable[Part],
    base: Mapping[str, str],
    ports: Mapping[str, int],
    output: IO[bytes] | None = None,
    metrics_ports: Mapping[str, int] | None = None,
) -> list[Running]:
    """Start each part under gunicorn; `output` receives their logs (default: this terminal)."""
    running = []
    log = Path(output.name) if output is not None and isinstance(getattr(output, "name", None), str) else None
    for part in parts:
        process = subprocess.Popen(
            gunicorn_command(part, ports[part.name]),
            env=part_environ(base, part, ports, (metrics_ports or {}).get(part.name)),
            start_new_session=True,
            stdout=output,
            stderr=output,
        )
        running.append(Running(part, ports[part.name], process, log))
    return running


def is_ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/readyz", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def wait_ready(running: list[Running], timeout: float = READY_TIMEOUT_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    for item in running:
        while not is_ready(item.port):
            if item.process.poll() is not None:
                status = item.process.returncode
                raise RuntimeError(f"{item.part.name} exited with status {status} during startup{item.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{item.part.name} was not ready within {timeout:g}s{item.log_tail()}")
            time.sleep(0.2)


def stop(running: list[Running]) -> None:
    for item in running:
        if item.process.poll() is None:
            item.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    for item in running:
        try:
            item.process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log(f"{item.part.name} did not stop within {GRACE_SECONDS:g}s; killing it")
            item.process.kill()
            item.process.wait()
