"""The edge with wrk: a routed page as HTML and as markdown and the App's llms.txt, beside nginx
serving the same bytes from files in the same run; and origin pass-through beside nginx
`proxy_pass` to the same origin (an nginx serving a file).

Load: an App (bench/apps_setup.py) routing /pricing to a published page on a verified domain,
and a second verified domain of that App whose origin is the static nginx. Both servers get the same
number of processes as the edge has workers. Target: at least half of nginx's throughput.

    python -m deploy.stack exec -- python -m bench.edge
"""

from __future__ import annotations

import asyncio
import tempfile
import urllib.request
from pathlib import Path

from bench.apps_setup import organization_with_app
from bench.common import BenchStack, Throughput, bench_stack, load_average, report, say, wrk
from bench.nginx import nginx_proxy, nginx_static
from libs.common.db import create_pool, transaction
from libs.common.validators import normalize_route_path
from libs.contract.parts import APPS, CONTENT, EDGE, GATEWAY
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import app_routes as route_queries
from services.content import editing
from services.content.domains import DomainChange

SECONDS = 10
CONNECTIONS = 32
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


def row(name: str, edge: Throughput, reference: Throughput) -> tuple[str, str]:
    return (
        name,
        f"edge {edge.requests_per_second:,.0f} req/s p50 {edge.p50_ms:.2f} ms | nginx"
        f" {reference.requests_per_second:,.0f} req/s p50 {reference.p50_ms:.2f} ms | ratio"
        f" {edge.requests_per_second / reference.requests_per_second:.2f} | non-2xx {edge.non_2xx}"
        f" / {reference.non_2xx}",
    )


def main() -> None:
    with (
        bench_stack((GATEWAY, CONTENT, APPS, EDGE)) as stack,
        tempfile.TemporaryDirectory(prefix="bench-edge-") as files,
    ):
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
        with nginx_static(root, workers=EDGE.workers) as static:
            asyncio.run(origin_domain(stack, organization_id, app_id, static))
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
