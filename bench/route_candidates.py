"""Route candidates of a product with 10,000 documents, through the gateway, with the content service.

The documents are made through the public site-pages API (25 per request), so the content
service stores them exactly as it stores any page. Target: p50 under 150 ms.

    python -m deploy.stack exec -- python -m bench.route_candidates
"""

from __future__ import annotations

import asyncio
from collections import Counter

import aiohttp

from bench.apps_setup import create_pages, organization_with_app
from bench.common import Request, bench_stack, measure, report, say
from deploy.parts import APPS, CONTENT, GATEWAY

DOCUMENTS = 10_000
REQUESTS = 50
WARMUP = 5
TARGET_MS = 150.0


async def candidate_count(url: str, key: str) -> int:
    async with aiohttp.ClientSession() as session, session.get(url, headers={"x-api-key": key}) as response:
        body = await response.json()
    if response.status != 200:
        raise SystemExit(f"route candidates answered {response.status}: {body}")
    count: int = body["data"]["candidateCount"]
    return count


def main() -> None:
    with bench_stack((GATEWAY, CONTENT, APPS)) as stack:
        key, _, product_id, app_id = asyncio.run(organization_with_app(stack))
        say(f"creating {DOCUMENTS} documents through the site-pages API")
        statuses = Counter(page["status"] for page in asyncio.run(create_pages(stack, key, product_id, DOCUMENTS)))
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
