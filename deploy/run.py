"""`make run`: stores up, database migrated, demo seeded, then the gateway and every service.

Each part runs under gunicorn (libs/local/processes.py), in its own session so that Ctrl-C
reaches only this supervisor, which then stops every part gracefully (SIGTERM, then SIGKILL
after the grace period) and the private stores it started, if any.
"""

from __future__ import annotations

import signal
import sys
import time

from deploy import seed
from libs.common.bootstrap import setup
from libs.contract.parts import EDGE, GATEWAY, PARTS, part_ports
from libs.local.processes import HOST, Running, start, stop, wait_ready
from libs.local.stores import local_stack


def log(message: str) -> None:
    print(f"[run] {message}", file=sys.stderr, flush=True)


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
            for name, versions in setup(environ["DATABASE_URL"]).items():
                log(f"migrations of {name}: {', '.join(versions) if versions else 'up to date'}")
            demo = seed.run(environ["DATABASE_URL"])
            ports = part_ports(environ)
            running = start(PARTS, environ, ports)
            wait_ready(running)
            print(banner(demo, ports[GATEWAY.name], ports[EDGE.name]), flush=True)
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


def banner(demo: seed.Demo, port: int, edge_port: int) -> str:
    url, edge = f"http://{HOST}:{port}", f"http://{HOST}:{edge_port}"
    host = seed.APP_DOMAIN["domain"]
    key = demo.key
    return (
        f"\nThe API is up at {url}\n\nDashboard: {url}/login\n  email:    {demo.email}\n  password: {demo.password}\n"
        f"API reference: {url}/docs\n\nDemo API key (every scope):\n  {key}\n\nTry:\n"
        f"  curl -s -H 'x-api-key: {key}' {url}/api/v1/agent-simulation/runs\n"
        f"  curl -s -H 'x-api-key: {key}' -H 'Content-Type: application/json' -d '{{\"query\": \"getting started\"}}'"
        f" {url}/api/v1/content/search/{seed.ORGANIZATION['id']}\n\n"
        f"The demo App on its domain, through the edge ({edge}):\n"
        f"  curl -H 'Host: {host}' {edge}/pricing\n"
        f"  curl -H 'Host: {host}' -H 'Accept: text/markdown' {edge}/pricing\n"
        f"  curl -H 'Host: {host}' {edge}/llms.txt\n\nCtrl-C stops everything.\n"
    )


if __name__ == "__main__":
    sys.exit(main())
