"""What agents read of an App with 10,000 routes: llms.txt, sitemap.xml and llms-full.txt.

Load: an organization with a product of 10,000 published documents (COPY into the content schema,
as bench.route_candidates loads them, each with a description), an app serving the product with a
web domain and a route to each document (inserted as the apps service inserts a batch).

Measured, through the gateway with an API key, one request at a time, the load average beside
each result:
- llms.txt (target: p50 under 100 ms), a 304 to its current ETag, and sitemap.xml;
- llms-full.txt, streamed: time to the first byte and to the last, its size, and the resident
  memory of the apps, content and gateway workers before and after (streamed, it should not grow
  with the answer);
- how long after a document's change its new title is in llms.txt (computed on read: the next
  answer; the issue allows 2 s);
- the reference: GET /api/v1/apps/{appId}, a one-row read, in the same run.

    python -m deploy.stack exec -- python -m bench.llms_txt
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time

import aiohttp
import psycopg2

from bench.apps_setup import organization_with_app, verified_domain
from bench.common import BenchStack, Latency, Request, bench_stack, copy_rows, load_average, measure, report, say
from bench.route_candidates import memory, read_whole
from bench.site_pages import COLUMNS, document_rows
from libs.common.db import create_pool, session_options, transaction
from libs.contract.parts import APPS, CONTENT, GATEWAY
from services.apps.queries import app_routes as route_queries

ROUTES = 10_000
REQUESTS = 300
WARMUP = 20
FULL_ROUNDS = 5
CHANGES = 5
TARGET_MS = 100.0


def seed_documents(stack: BenchStack, organization_id: str, product_id: str) -> list[tuple]:
    rows = document_rows(random.Random(20261126), organization_id, product_id, ROUTES, published_share=1.0)
    conn = psycopg2.connect(stack.part_dsn(CONTENT), options=session_options(CONTENT.schema))
    with conn, conn.cursor() as cur:
        copy_rows(cur, "documents", COLUMNS, rows)
        cur.execute("UPDATE documents SET description = meta_description WHERE product_id = %s", (product_id,))
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("VACUUM ANALYZE documents")
    conn.close()
    return rows


async def route_all(stack: BenchStack, organization_id: str, app_id: str, rows: list[tuple]) -> None:
    """A route at each document's own path, inserted as the routes batch inserts them."""
    routes = [(row[3], row[3], "product_document", row[0]) for row in rows]
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 1) as pool, transaction(pool) as cur:
        await route_queries.insert_routes(cur, organization_id, app_id, routes)


async def fetch(url: str, key: str, **headers: str) -> tuple[int, bytes, str]:
    async with aiohttp.ClientSession(headers={"x-api-key": key, **headers}) as session:
        async with session.get(url) as response:
            return response.status, await response.read(), response.headers.get("ETag", "")


async def change_seen_after(gateway: str, app_url: str, key: str, document_id: str, round_number: int) -> float:
    """Seconds from a document's new title being stored (its PUT answered) to llms.txt showing it."""
    title = f"Changed title {round_number}"
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        async with session.put(f"{gateway}/api/v1/content/{document_id}", json={"title": title}) as response:
            if response.status != 200:
                raise SystemExit(f"changing a document failed: {response.status}")
        stored = time.perf_counter()
        while time.perf_counter() - stored < 10:
            async with session.get(f"{app_url}/llms.txt") as answer:
                if title in await answer.text():
                    return time.perf_counter() - stored
    raise SystemExit("a changed title was not in llms.txt within 10 s")


def latency_line(result: Latency, target: bool = False) -> str:
    verdict = f"   ({'meets' if result.p50_ms < TARGET_MS else 'MISSES'} the {TARGET_MS:g} ms target)" if target else ""
    return (
        f"p50 {result.p50_ms:7.2f} ms   p99 {result.p99_ms:7.2f} ms   {result.failures} failed   {load_average()}"
        + verdict
    )


def main() -> None:
    with bench_stack((GATEWAY, CONTENT, APPS)) as stack:
        key, organization_id, product_id, app_id = asyncio.run(organization_with_app(stack))
        gateway = stack.url("gateway")
        app_url = f"{gateway}/api/v1/apps/{app_id}"
        say(f"seeding {ROUTES:,} published documents and a route to each ({load_average()})")
        rows = seed_documents(stack, organization_id, product_id)
        asyncio.run(route_all(stack, organization_id, app_id, rows))
        asyncio.run(verified_domain(stack, organization_id, app_id, "docs.bench.example.com"))
        headers = {"x-api-key": key}

        status, index, etag = asyncio.run(fetch(f"{app_url}/llms.txt", key))
        links = index.count(b"\n- [")
        if status != 200 or links != ROUTES:
            raise SystemExit(f"llms.txt answered {status} with {links} links")
        status, sitemap, _ = asyncio.run(fetch(f"{app_url}/sitemap.xml", key))
        if status != 200 or sitemap.count(b"<url>") != ROUTES:
            raise SystemExit(f"sitemap.xml answered {status}")
        if asyncio.run(fetch(f"{app_url}/llms.txt", key, **{"If-None-Match": etag}))[0] != 304:
            raise SystemExit("llms.txt did not answer 304 to its own ETag")

        reference = measure([Request("GET", app_url, headers)], count=REQUESTS, warmup=WARMUP)
        llms = measure([Request("GET", f"{app_url}/llms.txt", headers)], count=REQUESTS, warmup=WARMUP)
        unchanged = measure(
            [Request("GET", f"{app_url}/llms.txt", {**headers, "If-None-Match": etag})], count=REQUESTS, warmup=WARMUP
        )
        sitemaps = measure([Request("GET", f"{app_url}/sitemap.xml", headers)], count=REQUESTS, warmup=WARMUP)

        before = memory(stack)
        firsts, lasts, size = [], [], 0
        for _ in range(FULL_ROUNDS):
            first, last, size, _body = asyncio.run(read_whole(f"{app_url}/llms-full.txt", key, keep=False))
            firsts.append(first * 1000)
            lasts.append(last * 1000)
        after = memory(stack)

        seen = [asyncio.run(change_seen_after(gateway, app_url, key, rows[i][0], i)) * 1000 for i in range(CHANGES)]
        report(
            f"What agents read of an app with {ROUTES:,} routes, through the gateway, one request at a time"
            f" ({REQUESTS} requests each, {FULL_ROUNDS} llms-full.txt)",
            [
                ("reference: GET /apps/{appId}", latency_line(reference)),
                (f"llms.txt ({len(index) / 1e6:.2f} MB)", latency_line(llms, target=True)),
                ("llms.txt, If-None-Match: 304", latency_line(unchanged)),
                (f"sitemap.xml ({len(sitemap) / 1e6:.2f} MB)", latency_line(sitemaps)),
                (
                    f"llms-full.txt ({size / 1e6:.1f} MB), streamed",
                    f"first byte {statistics.median(firsts):6.1f} ms   last byte {statistics.median(lasts):7.1f} ms"
                    f"   {load_average()}",
                ),
                ("memory before llms-full.txt", before),
                ("memory after it", after),
                (
                    "a document change seen in llms.txt after",
                    f"max {max(seen):6.1f} ms, median {statistics.median(seen):6.1f} ms over {CHANGES} changes",
                ),
            ],
        )


if __name__ == "__main__":
    main()
