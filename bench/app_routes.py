"""Route import preview and batch of 100 routes into an app that already has 10,000 routes.

Gateway, content and apps as gunicorn processes; through the gateway with an API key, one request
at a time. The 100 target documents are real pages of the content service, which the apps
service looks up for every request. Target: p50 under 150 ms for each.

    python -m deploy.stack exec -- python -m bench.app_routes
"""

from __future__ import annotations

import asyncio
import uuid

from bench.apps_setup import create_pages, organization_with_app
from bench.common import BenchStack, Latency, Request, bench_stack, measure, report, say
from libs.common.db import create_pool, transaction
from libs.contract.parts import APPS, CONTENT, GATEWAY
from services.apps.queries import app_routes as route_queries

EXISTING_ROUTES = 10_000
ROUTES_PER_REQUEST = 100
PREVIEWS = 300
BATCHES = 200
WARMUP = 20
TARGET_MS = 150.0


async def fill_app(stack: BenchStack, organization_id: str, app_id: str) -> None:
    """EXISTING_ROUTES routes in the app, to documents of no concern to the measured requests."""
    paths = [f"/existing/{index}" for index in range(EXISTING_ROUTES)]
    routes = [(path, path, "product_document", str(uuid.uuid4())) for path in paths]
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 1) as pool, transaction(pool) as cur:
        await route_queries.insert_routes(cur, organization_id, app_id, routes)


def import_bodies(prefix: str, count: int, target_ids: list[str]) -> list[dict[str, list[dict[str, str]]]]:
    """`count` bodies of a route to each target, at paths no other body uses."""
    return [
        {
            "routes": [
                {"path": f"/{prefix}/{body}/{index}", "targetId": target_id, "targetType": "product_document"}
                for index, target_id in enumerate(target_ids)
            ]
        }
        for body in range(count)
    ]


def line(result: Latency) -> str:
    verdict = "meets" if result.p50_ms < TARGET_MS else "MISSES"
    return (
        f"p50 {result.p50_ms:7.2f} ms   p99 {result.p99_ms:7.2f} ms   {result.count} requests,"
        f" {result.failures} failed   ({verdict} the {TARGET_MS:g} ms target)"
    )


def main() -> None:
    with bench_stack((GATEWAY, CONTENT, APPS)) as stack:
        key, organization_id, product_id, app_id = asyncio.run(organization_with_app(stack))
        pages = asyncio.run(create_pages(stack, key, product_id, ROUTES_PER_REQUEST))
        target_ids = [page["id"] for page in pages]
        asyncio.run(fill_app(stack, organization_id, app_id))
        base = f"{stack.url('gateway')}/api/v1/apps/{app_id}/routes"
        headers = {"x-api-key": key}
        say(f"app with {EXISTING_ROUTES} routes; previews of {ROUTES_PER_REQUEST} routes")
        previews = [
            Request("POST", f"{base}/import-preview", headers, body) for body in import_bodies("preview", 1, target_ids)
        ]
        preview = measure(previews, count=PREVIEWS, warmup=WARMUP)
        say(f"batches of {ROUTES_PER_REQUEST} new routes each")
        batches = [
            Request("POST", f"{base}/batch", headers, body)
            for body in import_bodies("batch", WARMUP + BATCHES, target_ids)
        ]
        # Every measured batch must create its routes, so the warm-up has bodies of its own.
        measure(batches[:WARMUP], count=WARMUP, warmup=0)
        batch = measure(batches[WARMUP:], count=BATCHES, warmup=0)
        final = EXISTING_ROUTES + (WARMUP + BATCHES) * ROUTES_PER_REQUEST
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
