"""Route candidates of a product with 10,000 documents, through the gateway, against the real content service.

The documents are made through the public site-pages API (25 per request), so the content
service stores them exactly as it stores any page. Target: p50 under 150 ms.

    python -m deploy.stack exec -- python -m bench.route_candidates
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import aiohttp

from bench.common import BenchStack, Request, bench_stack, measure, report, say
from deploy.parts import APPS, GATEWAY, by_name
from gateway import queries as identity
from gateway.auth.api_keys import create_api_key
from gateway.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from services.apps.queries import apps as app_queries

DOCUMENTS = 10_000
PAGES_PER_REQUEST = 25
CONCURRENT_WRITES = 8
REQUESTS = 50
WARMUP = 5
TARGET_MS = 150.0


async def seed_identity_and_app(stack: BenchStack) -> tuple[str, str, str]:
    """An organization with a product, a key of every scope and an app; returns (key, product id, app id)."""
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        organization = await identity.create_organization(cur, "bench", "Bench Organization")
        product = await identity.create_product(cur, str(organization["id"]), "Bench Product", "bench-product")
        key, _ = await create_api_key(cur, str(organization["id"]), "bench", ALL_SCOPES)
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 2) as pool, transaction(pool) as cur:
        app = await app_queries.create_app(cur, str(organization["id"]), "Bench", "bench", {})
    return key, str(product["id"]), str(app["id"])


async def create_documents(stack: BenchStack, key: str, product_id: str) -> Counter[str]:
    """DOCUMENTS pages of the product through POST /api/v1/site/pages; returns how many have each status."""
    statuses: Counter[str] = Counter()
    gate = asyncio.Semaphore(CONCURRENT_WRITES)
    url = f"{stack.url('gateway')}/api/v1/site/pages"

    async def create(session: aiohttp.ClientSession, first: int) -> None:
        pages = [{"slug": f"page-{index}", "title": f"Page {index}", "content": f"# Page {index}\n\n{uuid.uuid4()}"}
                 for index in range(first, first + PAGES_PER_REQUEST)]  # fmt: skip
        async with gate, session.post(url, json={"productId": product_id, "pages": pages}) as response:
            body = await response.json()
        if response.status >= 400 or body["data"]["failedCount"]:
            raise SystemExit(f"creating pages failed: {response.status} {body}")
        statuses.update(page["status"] for page in body["data"]["created"])

    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        await asyncio.gather(*(create(session, first) for first in range(0, DOCUMENTS, PAGES_PER_REQUEST)))
    return statuses


async def candidate_count(url: str, key: str) -> int:
    async with aiohttp.ClientSession() as session, session.get(url, headers={"x-api-key": key}) as response:
        body = await response.json()
    if response.status != 200:
        raise SystemExit(f"route candidates answered {response.status}: {body}")
    count: int = body["data"]["candidateCount"]
    return count


def main() -> None:
    try:
        content = by_name("content")
    except KeyError:
        raise SystemExit("this benchmark needs the content service (services/content) in deploy/parts.py") from None
    with bench_stack((GATEWAY, APPS, content)) as stack:
        key, product_id, app_id = asyncio.run(seed_identity_and_app(stack))
        say(f"creating {DOCUMENTS} documents through the site-pages API")
        statuses = asyncio.run(create_documents(stack, key, product_id))
        status, count = statuses.most_common(1)[0]
        if count != DOCUMENTS:
            raise SystemExit(f"expected {DOCUMENTS} documents of one status, got {dict(statuses)}")
        url = f"{stack.url('gateway')}/api/v1/apps/{app_id}/route-candidates?productId={product_id}&status={status}"
        listed = asyncio.run(candidate_count(url, key))
        if listed != DOCUMENTS:
            raise SystemExit(f"expected {DOCUMENTS} candidates, the endpoint lists {listed}")
        result = measure([Request("GET", url, {"x-api-key": key})], count=REQUESTS, warmup=WARMUP)
        verdict = "meets" if result.p50_ms < TARGET_MS else "MISSES"
        report(
            f"Route candidates of a product with {DOCUMENTS} {status} documents, through the gateway,"
            " one request at a time",
            [
                ("route-candidates", f"p50 {result.p50_ms:7.2f} ms   p99 {result.p99_ms:7.2f} ms   {result.count}"
                                     f" requests, {result.failures} failed   ({verdict} the {TARGET_MS:g} ms target)"),
            ],
        )  # fmt: skip


if __name__ == "__main__":
    main()
