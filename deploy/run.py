"""`make run`: stores up, database migrated, demo seeded, then the gateway and every service.

Each part runs under gunicorn with aiohttp's uvloop worker, in its own session so that Ctrl-C
reaches only this supervisor, which then stops every part gracefully (SIGTERM, then SIGKILL
after the grace period) and the private stores it started, if any.
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
from typing import IO

from deploy import db, seed
from deploy.stack import DATA, local_stack
from libs.contract.parts import GATEWAY, METRICS_PORT_OFFSET, PARTS, ROOT, Part, part_ports

GRACE_SECONDS = 15.0
READY_TIMEOUT_SECONDS = 60.0
HOST = "127.0.0.1"


def log(message: str) -> None:
    print(f"[run] {message}", file=sys.stderr, flush=True)


def gunicorn_command(part: Part, port: int) -> list[str]:
    return [
        sys.executable, "-m", "gunicorn", part.app,
        "--bind", f"{HOST}:{port}",
        "--worker-class", "aiohttp.GunicornUVLoopWebWorker",
        "--workers", str(part.workers),
        "--graceful-timeout", "10",
        "--chdir", str(ROOT),
        "--no-control-socket",  # one per master at a shared default path: parts would collide
        "--config", str(ROOT / "deploy/gunicorn_conf.py"),  # the metrics listener
        "--log-config-json", str(ROOT / "deploy/gunicorn-logging.json"),
    ]  # fmt: skip


def part_environ(
    base: Mapping[str, str], part: Part, ports: Mapping[str, int], metrics_port: int | None = None
) -> dict[str, str]:
    """A part's environment: its own database role, the services' addresses, a metrics directory
    and the metrics listener's address (default: its public port + METRICS_PORT_OFFSET)."""
    environ = dict(base)
    environ["DATABASE_URL"] = db.part_dsn(base["DATABASE_URL"], part)
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
    return environ


@dataclass
class Running:
    part: Part
    port: int
    process: subprocess.Popen[bytes]


def start(
    parts: Iterable[Part],
    base: Mapping[str, str],
    ports: Mapping[str, int],
    output: IO[bytes] | None = None,
    metrics_ports: Mapping[str, int] | None = None,
) -> list[Running]:
    """Start each part under gunicorn; `output` receives their logs (default: this terminal)."""
    running = []
    for part in parts:
        process = subprocess.Popen(
            gunicorn_command(part, ports[part.name]),
            env=part_environ(base, part, ports, (metrics_ports or {}).get(part.name)),
            start_new_session=True,
            stdout=output,
            stderr=output,
        )
        running.append(Running(part, ports[part.name], process))
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
                raise RuntimeError(f"{item.part.name} exited with status {item.process.returncode} during startup")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{item.part.name} was not ready within {timeout:g}s")
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


class _Stop(Exception):
    pass


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop


def main() -> int:
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    running: list[Running] = []
    status = 0
    with local_stack() as environ:
        try:
            for name, versions in db.setup(environ["DATABASE_URL"]).items():
                log(f"migrations of {name}: {', '.join(versions) if versions else 'up to date'}")
            demo = seed.run(environ["DATABASE_URL"])
            ports = part_ports(environ)
            running = start(PARTS, environ, ports)
            wait_ready(running)
            print(banner(demo, ports[GATEWAY.name]), flush=True)
            while all(item.process.poll() is None for item in running):
                time.sleep(0.5)
            exited = ", ".join(item.part.name for item in running if item.process.poll() is not None)
            log(f"{exited} exited; stopping the rest")
            status = 1
        except _Stop:
            log("stopping")
        finally:
            # A second Ctrl-C must not interrupt the orderly stop: services first, then the stores.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            stop(running)
    return status


def banner(demo: seed.Demo, port: int) -> str:
    url = f"http://{HOST}:{port}"
    key = demo.key
    return (
        f"\nThe API is up at {url}\n\nDashboard: {url}/login\n  email:    {demo.email}\n  password: {demo.password}\n"
        f"API reference: {url}/docs\n\nDemo API key (every scope):\n  {key}\n\nTry:\n"
        f"  curl -s -H 'x-api-key: {key}' {url}/api/v1/agent-simulation/runs\n"
        f"  curl -s -H 'x-api-key: {key}' -H 'Content-Type: application/json' -d '{{\"query\": \"getting started\"}}'"
        f" {url}/api/v1/content/search/{seed.ORGANIZATION['id']}\n\nCtrl-C stops everything.\n"
    )


if __name__ == "__main__":
    sys.exit(main())
