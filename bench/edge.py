"""The edge with wrk: a routed page as HTML and as markdown and the App's llms.txt, beside nginx
serving the same bytes from files in the same run; and origin pass-through beside nginx
`proxy_pass` to the same origin (an nginx serving a file).

Load: the demo seed (deploy/seed.py), whose App routes /pricing on docs.demo.example.com, and a
second verified domain of that App whose origin is the static nginx. Both servers get the same
number of processes as the edge has workers. Target: at least half of nginx's throughput.

    python -m deploy.stack exec -- python -m bench.edge
"""

from __future__ import annotations

import asyncio
import tempfile
import urllib.request
from pathlib import Path

from bench.common import BenchStack, Throughput, bench_stack, load_average, report, say, wrk
from bench.nginx import nginx_proxy, nginx_static
from deploy import seed
from libs.common.db import create_pool, transaction
from libs.contract.parts import APPS, CONTENT, EDGE
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider

SECONDS = 10
CONNECTIONS = 32
HOST = seed.APP_DOMAIN["domain"]
ORIGIN_HOST = "origin.bench.example.com"
CASES = (
    ("page (HTML)", "/pricing", {"Accept": "text/html"}),
    ("page (markdown)", "/pricing", {"Accept": "text/markdown"}),
    ("llms.txt", "/llms.txt", {}),
)


def fetch(url: str, headers: dict[str, str]) -> bytes:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        body: bytes = response.read()
        return body


async def origin_domain(stack: BenchStack, origin: str) -> None:
    """A second verified domain of the demo App, its origin `origin`."""
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 1) as pool, transaction(pool) as cur:
        values = {"scope": "app", "app_id": seed.APP["id"], "domain": ORIGIN_HOST, "type": "web", "origin": origin}
        await register_domain(cur, LocalEdgeProvider(), seed.ORGANIZATION["id"], values)


def row(name: str, edge: Throughput, reference: Throughput) -> tuple[str, str]:
    return (
        name,
        f"edge {edge.requests_per_second:,.0f} req/s p50 {edge.p50_ms:.2f} ms | nginx"
        f" {reference.requests_per_second:,.0f} req/s p50 {reference.p50_ms:.2f} ms | ratio"
        f" {edge.requests_per_second / reference.requests_per_second:.2f} | non-2xx {edge.non_2xx}"
        f" / {reference.non_2xx}",
    )


def main() -> None:
    with bench_stack((CONTENT, APPS, EDGE)) as stack, tempfile.TemporaryDirectory(prefix="bench-edge-") as files:
        seed.run(stack.admin_dsn, Path(files) / "demo-key")
        edge = stack.url(EDGE.name)
        root = Path(files, "site")
        root.mkdir()
        # nginx's workers run as an unprivileged user: the files must be readable to them.
        for directory in (Path(files), root):
            directory.chmod(0o755)
        for index, (_, path, headers) in enumerate(CASES):
            # The same bytes the edge answers, as files nginx serves.
            root.joinpath(f"case{index}").write_bytes(fetch(edge + path, {"Host": HOST, **headers}))
        root.joinpath("origin.html").write_bytes(b"<!doctype html><p>" + b"origin page " * 100 + b"</p>\n")
        rows = []
        with nginx_static(root, workers=EDGE.workers) as static:
            asyncio.run(origin_domain(stack, static))
            for index, (name, path, headers) in enumerate(CASES):
                say(f"{name}: load {load_average()}")
                edge_run = wrk(edge + path, {"Host": HOST, **headers}, SECONDS, CONNECTIONS)
                nginx_run = wrk(f"{static}/case{index}", headers, SECONDS, CONNECTIONS)
                rows.append(row(name, edge_run, nginx_run))
            with nginx_proxy(static.removeprefix("http://")) as proxy:
                say(f"origin pass-through: load {load_average()}")
                edge_run = wrk(edge + "/origin.html", {"Host": ORIGIN_HOST}, SECONDS, CONNECTIONS)
                nginx_run = wrk(proxy + "/origin.html", {}, SECONDS, CONNECTIONS)
                rows.append(row("origin pass-through (nginx: proxy_pass)", edge_run, nginx_run))
        rows.append(("load average after", load_average()))
        report(f"The edge beside nginx, wrk {CONNECTIONS} connections {SECONDS} s", rows)


if __name__ == "__main__":
    main()
