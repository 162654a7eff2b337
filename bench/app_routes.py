"""Route import preview and batch of 100 routes into an app that already has 10,000 routes.

Through the gateway with an API key, one request at a time. The documents the routes point at
come from a stand-in for the content service's internal lookup (the one of tests/apps), run in
this process: it answers in well under a millisecond, so the numbers are the gateway's and the
apps service's cost plus one loopback call. Target: p50 under 150 ms for each.

    python -m deploy.stack exec -- python -m bench.app_routes
"""

from __future__ import annotations

import asyncio
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from bench.common import BenchStack, Latency, Request, bench_stack, measure, report, say
from deploy.parts import APPS, GATEWAY
from gateway import queries as identity
from gateway.auth.api_keys import create_api_key
from gateway.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.common.settings import Env
from services.apps.queries import apps as app_queries
from services.apps.queries import routes as route_queries
from tests.apps.support import FakeContent
from tests.factories import Org

EXISTING_ROUTES = 10_000
ROUTES_PER_REQUEST = 100
PREVIEWS = 300
BATCHES = 200
WARMUP = 20
TARGET_MS = 150.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve_in_thread(app: web.Application) -> Iterator[str]:
    """`app` on a free local port, served by its own event loop in a background thread."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    port = free_port()
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
    thread = threading.Thread(target=loop.run_forever, name="content-stand-in", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.run_until_complete(runner.cleanup())
        loop.close()


async def seed(stack: BenchStack, organization: Org, product: dict[str, str]) -> tuple[str, str]:
    """The organization, its product and key, and an app with EXISTING_ROUTES routes; returns (key, app id)."""
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        await identity.create_organization(cur, organization.slug, organization.name, organization.id)
        await identity.create_product(cur, organization.id, product["name"], product["slug"], product["id"])
        key, _ = await create_api_key(cur, organization.id, "bench", ALL_SCOPES)
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 2) as pool, transaction(pool) as cur:
        app = await app_queries.create_app(cur, organization.id, "Bench", "bench", {})
        routes = [(f"/existing/{index}", "product_document", str(uuid.uuid4())) for index in range(EXISTING_ROUTES)]
        await route_queries.insert_routes(cur, organization.id, app["id"], routes)
    return key, str(app["id"])


def import_bodies(
    content: FakeContent, organization: Org, product: dict[str, str], prefix: str, count: int
) -> list[dict[str, list[dict[str, str]]]]:
    """`count` bodies of ROUTES_PER_REQUEST new routes each, to documents not routed yet."""
    bodies = []
    for body in range(count):
        targets = [content.add(organization, product)["id"] for _ in range(ROUTES_PER_REQUEST)]
        routes = [{"path": f"/{prefix}/{body}/{index}", "targetId": target_id, "targetType": "product_document"}
                  for index, target_id in enumerate(targets)]  # fmt: skip
        bodies.append({"routes": routes})
    return bodies


def line(result: Latency) -> str:
    verdict = "meets" if result.p50_ms < TARGET_MS else "MISSES"
    return (
        f"p50 {result.p50_ms:7.2f} ms   p99 {result.p99_ms:7.2f} ms   {result.count} requests,"
        f" {result.failures} failed   ({verdict} the {TARGET_MS:g} ms target)"
    )


def main() -> None:
    organization = Org(str(uuid.uuid4()), "bench", "Bench Organization")
    product = {"id": str(uuid.uuid4()), "name": "Bench Product", "slug": "bench-product"}
    secret = Env().secret("INTERNAL_TOKEN_SECRET")
    content = FakeContent(secret)
    preview_bodies = import_bodies(content, organization, product, "preview", 1)
    batch_bodies = import_bodies(content, organization, product, "batch", WARMUP + BATCHES)
    with (
        serve_in_thread(content.app()) as content_url,
        bench_stack((GATEWAY, APPS), {"CONTENT_URL": content_url}) as stack,
    ):
        key, app_id = asyncio.run(seed(stack, organization, product))
        base = f"{stack.url('gateway')}/api/v1/apps/{app_id}/routes"
        headers = {"x-api-key": key}
        say(f"app with {EXISTING_ROUTES} routes; previews of {ROUTES_PER_REQUEST} routes")
        previews = [Request("POST", f"{base}/import-preview", headers, body) for body in preview_bodies]
        preview = measure(previews, count=PREVIEWS, warmup=WARMUP)
        say(f"batches of {ROUTES_PER_REQUEST} new routes each")
        batches = [Request("POST", f"{base}/batch", headers, body) for body in batch_bodies]
        # Every measured batch must create its routes, so the warm-up has bodies of its own.
        measure(batches[:WARMUP], count=WARMUP, warmup=0)
        batch = measure(batches[WARMUP:], count=BATCHES, warmup=0)
        final = EXISTING_ROUTES + (BATCHES + WARMUP) * ROUTES_PER_REQUEST
        report(
            f"Route import of {ROUTES_PER_REQUEST} routes into an app of {EXISTING_ROUTES} routes, through the gateway,"
            " one request at a time",
            [
                ("import-preview", line(preview)),
                ("batch", line(batch)),
                ("app size during the batches", f"{EXISTING_ROUTES} growing to {final} routes"),
            ],
        )


if __name__ == "__main__":
    main()
