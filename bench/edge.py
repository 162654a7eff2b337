"""The edge with wrk: a routed page as HTML and as markdown and the App's llms.txt, beside nginx
serving the same bytes from files and a bare aiohttp application answering them from memory (the
ceiling of the edge's stack), all in the same run; the edge's p50 with and without the capture of
its requests; and origin pass-through beside nginx `proxy_pass` to the same origin.

Load: an App (bench/apps_setup.py) routing /pricing to a published page on a verified domain,
and a second verified domain of that App whose origin is the static nginx. The edge, nginx and
the bare server each run one worker process: the target (half of nginx's throughput or better)
is stated for one core.

    python -m deploy.stack exec -- python -m bench.edge
"""

from __future__ import annotations

import asyncio
import tempfile
import urllib.request
from dataclasses import replace
from pathlib import Path

from bench.apps_setup import organization_with_app
from bench.bare_aiohttp import bare_aiohttp
from bench.common import BenchStack, Request, Throughput, bench_stack, load_average, measure, report, say, wrk
from bench.nginx import nginx_proxy, nginx_static
from libs.common.db import create_pool, transaction
from libs.contract.parts import APPS, CONTENT, EDGE, GATEWAY
from libs.contract.validators import normalize_route_path
from libs.local.ports import free_port
from libs.local.processes import start, stop, wait_ready
from libs.local.stores import DATA
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import app_routes as route_queries
from services.content import editing
from services.content.domains import DomainChange

SECONDS = 10
CONNECTIONS = 32
ONE_AT_A_TIME = 2000
WORKERS = 1
PARTS = (GATEWAY, CONTENT, APPS, replace(EDGE, workers=WORKERS))
HOST = "docs.bench.example.com"
PRICING = "# Pricing\n\nOne plan, billed monthly. " + "What it includes, said plainly. " * 20 + "\n"
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


async def site(stack: BenchStack) -> tuple[str, str]:
    """An App routing /pricing to a published page on the verified domain HOST: its organization and id."""
    _, organization_id, product_id, app_id = await organization_with_app(stack)
    async with create_pool(stack.part_dsn(CONTENT), CONTENT.schema, 1, 1) as pool, transaction(pool) as cur:
        values = {"title": "Pricing", "status": "published", "content": PRICING, "meta_title": "Pricing"}
        page = await editing.create_document(cur, organization_id, product_id, "pricing", values, DomainChange(), {})
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 1) as pool, transaction(pool) as cur:
        domain = {"scope": "app", "app_id": app_id, "domain": HOST, "type": "web"}
        await register_domain(cur, LocalEdgeProvider(), organization_id, domain)
        route = ("/pricing", normalize_route_path("/pricing"), "product_document", str(page["id"]))
        await route_queries.insert_routes(cur, organization_id, app_id, [route])
    return organization_id, app_id


async def origin_domain(stack: BenchStack, organization_id: str, app_id: str, origin: str) -> None:
    """A second verified domain of the App, its origin `origin`."""
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 1) as pool, transaction(pool) as cur:
        values = {"scope": "app", "app_id": app_id, "domain": ORIGIN_HOST, "type": "web", "origin": origin}
        await register_domain(cur, LocalEdgeProvider(), organization_id, values)


def measured(run: Throughput) -> str:
    return f"{run.requests_per_second:,.0f} req/s p50 {run.p50_ms:.2f} ms non-2xx {run.non_2xx}"


def ratio(run: Throughput, reference: Throughput) -> str:
    return f"{run.requests_per_second / reference.requests_per_second:.2f}"


def ratios(edge: Throughput, bare: Throughput, nginx: Throughput) -> str:
    return f"edge/nginx {ratio(edge, nginx)}, bare aiohttp/nginx {ratio(bare, nginx)}, edge/bare {ratio(edge, bare)}"


def main() -> None:
    with bench_stack(PARTS) as stack, tempfile.TemporaryDirectory(prefix="bench-edge-") as files:
        organization_id, app_id = asyncio.run(site(stack))
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
        with nginx_static(root, workers=WORKERS) as static:
            asyncio.run(origin_domain(stack, organization_id, app_id, static))
            for index, (name, path, headers) in enumerate(CASES):
                with bare_aiohttp(root / f"case{index}", WORKERS) as bare:
                    say(f"{name}: {load_average()}")
                    edge_run = wrk(edge + path, {"Host": HOST, **headers}, SECONDS, CONNECTIONS)
                    bare_run = wrk(f"{bare}{path}", headers, SECONDS, CONNECTIONS)
                    nginx_run = wrk(f"{static}/case{index}", headers, SECONDS, CONNECTIONS)
                rows += [
                    (f"{name}: edge", measured(edge_run)),
                    (f"{name}: bare aiohttp", measured(bare_run)),
                    (f"{name}: nginx", measured(nginx_run)),
                    (f"{name}: ratios", ratios(edge_run, bare_run, nginx_run)),
                ]
            rows += capture_rows(stack)
            with nginx_proxy(static.removeprefix("http://")) as proxy:
                say(f"origin pass-through: {load_average()}")
                edge_run = wrk(edge + "/origin.html", {"Host": ORIGIN_HOST}, SECONDS, CONNECTIONS)
                nginx_run = wrk(proxy + "/origin.html", {}, SECONDS, CONNECTIONS)
                rows += [
                    ("origin pass-through: edge", measured(edge_run)),
                    ("origin pass-through: nginx proxy_pass", measured(nginx_run)),
                    ("origin pass-through: ratio", f"edge/nginx {ratio(edge_run, nginx_run)}"),
                ]
        rows.append(("load average after", load_average()))
        report(f"The edge beside nginx and a bare aiohttp, wrk {CONNECTIONS} connections {SECONDS} s", rows)


def capture_rows(stack: BenchStack) -> list[tuple[str, str]]:
    """The routed page through the edge with its requests captured and through a second edge
    without (EDGE_REQUEST_LOG=off), one after the other: saturated by wrk, where the traffic part
    ingesting the captured requests shares the machine's cores with the edge, and one request at a
    time, where an answer waits only for its own work."""
    ports = {**stack.ports, EDGE.name: free_port()}
    environ = {**stack.environ, "EDGE_REQUEST_LOG": "off"}
    with open(DATA / "bench.log", "ab") as output:
        quiet = start([PARTS[-1]], environ, ports, output, metrics_ports={EDGE.name: free_port()})
    try:
        wait_ready(quiet)
        say(f"capture on and off: {load_average()}")
        headers = {"Host": HOST, "Accept": "text/html"}
        on, off = stack.url(EDGE.name) + "/pricing", f"http://127.0.0.1:{ports[EDGE.name]}/pricing"
        captured = wrk(on, headers, SECONDS, CONNECTIONS)
        uncaptured = wrk(off, headers, SECONDS, CONNECTIONS)
        alone = {url: measure([Request("GET", url, headers)], count=ONE_AT_A_TIME) for url in (on, off)}
    finally:
        stop(quiet)
    return [
        ("page (HTML), capture on", measured(captured)),
        ("page (HTML), capture off", measured(uncaptured)),
        (
            "capture's cost",
            f"p50 {captured.p50_ms - uncaptured.p50_ms:+.2f} ms, throughput ratio {ratio(captured, uncaptured)}",
        ),
        *(
            (f"one at a time ({ONE_AT_A_TIME}), capture {name}", f"p50 {run.p50_ms:.2f} ms p99 {run.p99_ms:.2f} ms")
            for name, run in (("on", alone[on]), ("off", alone[off]))
        ),
        ("one at a time, capture's cost", f"p50 {alone[on].p50_ms - alone[off].p50_ms:+.2f} ms"),
    ]


if __name__ == "__main__":
    main()
