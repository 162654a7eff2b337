"""Indexing for `bench.search`: pages created through the API and indexed from content's
events, alone and while queries run, with the lag from a page's write to its being searchable."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from typing import Any

import aiohttp
import psycopg2

from bench.common import BenchStack, load_average, say
from bench.site_pages import WORDS as PRODUCT_WORDS
from gateway import product_queries
from gateway import queries as identity
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, session_options, transaction
from libs.contract.parts import CONTENT, GATEWAY, SEARCH

QUERY_INTERVAL = 0.25  # seconds between query starts while indexing
WORDS = (
    PRODUCT_WORDS
    + (
        "refunds password login account subscription trial upgrade downgrade cancel calendar reminders notifications"
    ).split()
)
QUERIES = (
    "how do I cancel my subscription",
    "what does the team plan cost",
    "reset a forgotten password",
    "export my invoices as csv",
    "set up webhooks for new events",
    "who can change permissions",
    "connect the slack integration",
    "why is my page not in the sitemap",
    "schedule a post for next week",
    "how are search results ranked",
    "limits on api usage per month",
    "restore a deleted backup",
    "make a draft public",
    "add a custom domain",
    "route a path to a page",
    "what personas are for",
    "regenerate prompt suggestions",
    "monitor uptime and alerts",
    "where are the logs kept",
    "is my data private",
    "compliance certifications",
    "upgrade from the free trial",
    "refund for an annual plan",
    "invite a colleague to my team",
    "dashboards for analytics",
    "speed up slow pages",
    "move to another region",
    "github sync of markdown files",
    "what is a simulation run",
    "tokens used by agents",
    "language models supported",
    "evaluate answers of assistants",
    "robots rules for crawlers",
    "seo title and description",
    "onboarding checklist",
    "install on my own server",
    "deploy a new release",
    "notifications by email",
    "calendar reminders for launches",
    "glossary of terms",
)


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words)).capitalize() + "."


async def organization(stack: BenchStack, slug: str) -> tuple[str, str, str]:
    """An organization with one product and an API key of every scope: (key, org id, product id)."""
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        created = await identity.create_organization(cur, slug, slug.capitalize())
        product = await product_queries.create_product(cur, str(created["id"]), "Docs", "docs")
        key, _ = await create_api_key(cur, str(created["id"]), "bench", ALL_SCOPES)
    return key, str(created["id"]), str(product["id"])


async def indexing_throughput(stack: BenchStack, rng: random.Random, count: int) -> tuple[float, float, int]:
    """Pages created and published through the API until all are indexed: (seconds, pages/s, chunks)."""
    key, _, product_id = await organization(stack, "bench-indexing")
    pages = [
        {
            "slug": f"guide-{n}",
            "title": text(rng, 5),
            "status": "published",
            "content": "\n\n".join(text(rng, rng.randint(30, 80)) for _ in range(rng.randint(2, 5))),
        }
        for n in range(count)
    ]
    gateway = stack.url("gateway")
    started = time.perf_counter()
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        ids = []
        for first in range(0, len(pages), 25):
            async with session.post(
                f"{gateway}/api/v1/site/pages", json={"productId": product_id, "pages": pages[first : first + 25]}
            ) as response:
                body = await response.json()
            assert response.status == 200 and not body["data"]["failedCount"], body
            ids += [page["id"] for page in body["data"]["created"]]
    conn = psycopg2.connect(stack.part_dsn(CONTENT), options=session_options(CONTENT.schema))
    conn.autocommit = True
    try:
        with conn.cursor() as cur:

            def indexed() -> int:
                cur.execute(
                    "SELECT count(*) FROM documents WHERE id = ANY(%s::uuid[]) AND last_indexed_at IS NOT NULL", (ids,)
                )
                return int(cur.fetchone()[0])

            # In a thread: queries measured meanwhile share this event loop.
            while await asyncio.to_thread(indexed) < len(ids):
                if time.perf_counter() - started > 3600:
                    raise SystemExit("pages were not all indexed within an hour")
                await asyncio.sleep(0.5)
    finally:
        conn.close()
    elapsed = time.perf_counter() - started
    search = psycopg2.connect(stack.part_dsn(SEARCH), options=session_options(SEARCH.schema))
    with search, search.cursor() as cur:
        cur.execute("SELECT count(*) FROM chunks WHERE document_id = ANY(%s::uuid[])", (ids,))
        chunks = cur.fetchone()[0]
    search.close()
    return elapsed, len(ids) / elapsed, chunks


async def queries_while(url: str, key: str, busy: asyncio.Task[Any]) -> list[float]:
    """Latencies (ms) of queries sent one at a time, QUERY_INTERVAL apart, until `busy` is done:
    a steady query load, not one that would itself starve the indexing it is measured under."""
    timings: list[float] = []
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        index = 0
        while not busy.done():
            started = time.perf_counter()
            async with session.post(url, json={"query": QUERIES[index % len(QUERIES)]}) as response:
                await response.read()
                assert response.status == 200, response.status
            elapsed = time.perf_counter() - started
            timings.append(elapsed * 1000)
            index += 1
            await asyncio.sleep(max(0.0, QUERY_INTERVAL - elapsed))
    return timings


def p99(timings: list[float]) -> float:
    ordered = sorted(timings)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def indexing_under_queries(
    stack: BenchStack, rng: random.Random, pages: int, url: str, key: str
) -> tuple[tuple[float, float, int], list[float], list[float]]:
    """Index `pages` pages while querying; then the same queries idle."""
    busy = asyncio.create_task(indexing_throughput(stack, rng, pages))
    during = await queries_while(url, key, busy)
    result = await busy
    idle_until = asyncio.create_task(asyncio.sleep(max(10.0, min(60.0, len(during) * QUERY_INTERVAL / 2))))
    idle = await queries_while(url, key, idle_until)
    return result, during, idle


def lag_quantiles(stack: BenchStack) -> str:
    """The indexing-lag histogram of the search service's /metrics, as bucket bounds."""
    import urllib.request

    text = urllib.request.urlopen(stack.metrics_url("search"), timeout=10).read().decode()
    buckets = [
        (float(line.split('le="')[1].split('"')[0]), float(line.rsplit(" ", 1)[1]))
        for line in text.splitlines()
        if line.startswith("search_indexing_lag_seconds_bucket")
    ]
    total = max((count for _, count in buckets), default=0.0)
    if not total:
        return "no samples"

    def quantile(q: float) -> str:
        bound = next(bound for bound, count in sorted(buckets) if count >= q * total)
        return f"<= {bound:g} s"

    return f"{total:.0f} documents: p50 {quantile(0.5)}, p99 {quantile(0.99)}"


def indexing_rows(stack: BenchStack, rng: random.Random, pages: int, url: str, key: str) -> list[tuple[str, str]]:
    say(f"indexing {pages} pages made through the site-pages API, querying meanwhile ({load_average()})")
    (seconds, per_second, chunks), during, idle = asyncio.run(indexing_under_queries(stack, rng, pages, url, key))
    return [
        (
            "indexing",
            f"{pages} pages ({chunks} chunks) in {seconds:.1f} s: {per_second:.1f} pages/s,"
            f" {chunks / seconds:.1f} chunks/s   {load_average()}",
        ),
        ("indexing lag (metric)", lag_quantiles(stack)),
        (
            "10,000 chunks while indexing",
            f"p50 {statistics.median(during):6.2f} ms   p99 {p99(during):6.2f} ms   ({len(during)} queries)",
        ),
        (
            "10,000 chunks idle after",
            f"p50 {statistics.median(idle):6.2f} ms   p99 {p99(idle):6.2f} ms"
            f"   ({len(idle)} queries)   p99 ratio {p99(during) / p99(idle):.2f}",
        ),
    ]
