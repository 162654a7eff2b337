"""Route candidates of a product with 100,000 documents, through the gateway, with the content service.

Load: an organization with two products, loaded with COPY into the content schema as the content
role, as the content service stores pages (canonical paths, unique in their product; the facet
counts kept by its triggers), then vacuumed once: the large product holds 100,000 documents
(about 70% published), the small one 10,000, all published. Two apps: one serving both products
without routes, and one serving the large product that routes 10,000 of its published documents
(made through the routes batch API, 100 a request), the routes then analysed as autovacuum does
within a minute of such a load on a machine with time for it: without statistics PostgreSQL
reads every route of the app for each page's route lookup (both plans are printed).

Measured, through the gateway with an API key, one request at a time, the load average beside
each result:
- the first page (`limit=100`, and `limit=1000`) of the large product, of an app without routes
  and of the app routing a tenth of it, and a page from the middle of the list (target: the first
  page p50 <= 50 ms at 100,000 documents);
- the whole list without `limit`: the small product's 10,000 (what the first version answered
  whole in about 100 ms) and the large product's, streamed: time to the first byte and to the last;
- the resident memory (and its peak) of the apps, content and gateway workers before and after
  the whole lists: streamed, it should not grow with the list.

    python -m deploy.stack exec -- python -m bench.route_candidates
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from urllib.parse import urlencode

import aiohttp
import orjson
import psycopg2

from bench.apps_setup import organization_with_app
from bench.common import BenchStack, Request, bench_stack, copy_rows, load_average, measure, report, say
from bench.site_pages import COLUMNS, document_rows
from gateway import product_queries
from libs.common.cursors import encode_cursor
from libs.common.db import create_pool, session_options, transaction
from libs.contract.parts import APPS, CONTENT, GATEWAY
from services.apps.queries import apps as app_queries
from services.apps.queries.app_routes import ROUTES_MATCHING

DOCUMENTS = 100_000
SMALL_DOCUMENTS = 10_000
ROUTED = 10_000
ROUTES_PER_REQUEST = 100
PAGE_REQUESTS = 300
WHOLE_ROUNDS = 5
TARGET_MS = 50.0


async def seed_apps(stack: BenchStack) -> dict[str, str]:
    """The organization, its key, the two products and the two apps, by name."""
    key, organization_id, large, app = await organization_with_app(stack)
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        small = str((await product_queries.create_product(cur, organization_id, "Bench Small", "bench-small"))["id"])
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 2) as pool, transaction(pool) as cur:
        await app_queries.create_resource(cur, organization_id, app, "product", small)
        routed = str((await app_queries.create_app(cur, organization_id, "Routed", "routed", {}))["id"])
        await app_queries.create_resource(cur, organization_id, routed, "product", large)
    return {"key": key, "organization": organization_id, "large": large, "small": small, "app": app, "routed": routed}


def seed_content(stack: BenchStack, ids: dict[str, str]) -> list[tuple]:
    """Load both products' documents, vacuumed and analysed once; the large product's rows."""
    rng = random.Random(20261126)
    large = document_rows(rng, ids["organization"], ids["large"], DOCUMENTS)
    small = document_rows(rng, ids["organization"], ids["small"], SMALL_DOCUMENTS, published_share=1.0)
    conn = psycopg2.connect(stack.part_dsn(CONTENT), options=session_options(CONTENT.schema))
    with conn, conn.cursor() as cur:
        copy_rows(cur, "documents", COLUMNS, large + small)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("VACUUM ANALYZE documents")
    conn.close()
    return large


async def route_documents(stack: BenchStack, ids: dict[str, str], documents: list[tuple]) -> None:
    """Route the `documents` in the routed app, through the routes batch API, 4 requests at a time."""
    url = f"{stack.url('gateway')}/api/v1/apps/{ids['routed']}/routes/batch"
    batches = [documents[start : start + ROUTES_PER_REQUEST] for start in range(0, len(documents), ROUTES_PER_REQUEST)]
    gate = asyncio.Semaphore(4)

    async def send(session: aiohttp.ClientSession, number: int, batch: list[tuple]) -> None:
        routes = [{"path": f"/routed/{number}/{index}", "targetId": row[0]} for index, row in enumerate(batch)]
        async with gate, session.post(url, json={"routes": routes}) as response:
            body = await response.json()
        if response.status != 200 or body["data"]["createdCount"] != len(batch):
            raise SystemExit(f"routing failed: {response.status} {body}")

    async with aiohttp.ClientSession(headers={"x-api-key": ids["key"]}) as session:
        await asyncio.gather(*(send(session, number, batch) for number, batch in enumerate(batches)))


def explain_first_page(stack: BenchStack, ids: dict[str, str]) -> str:
    """How PostgreSQL reads the first 101 published documents of the large product (the content
    service's read for a first page, for one product)."""
    conn = psycopg2.connect(stack.part_dsn(CONTENT), options=session_options(CONTENT.schema))
    with conn, conn.cursor() as cur:
        cur.execute(
            "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id FROM documents WHERE product_id = %s"
            " AND status = 'published' AND deleted_at IS NULL AND organization_id = %s ORDER BY file_path, id"
            " LIMIT 101",
            (ids["large"], ids["organization"]),
        )
        plan = [row[0].strip() for row in cur.fetchall()]
    conn.close()
    return "; ".join(line for line in plan if line.startswith(("->", "Limit", "Index", "Buffers", "Execution")))


def explain_route_lookup(stack: BenchStack, ids: dict[str, str]) -> str:
    """How PostgreSQL finds the routed app's routes at the first read's paths and to its documents
    (the apps service's lookup for a page when the app has more routes than the page documents)."""
    content = psycopg2.connect(stack.part_dsn(CONTENT), options=session_options(CONTENT.schema))
    with content, content.cursor() as cur:
        cur.execute(
            "SELECT json_agg(file_path)::text, json_agg(id)::text FROM (SELECT file_path, id FROM documents"
            " WHERE product_id = %s AND status = 'published' AND deleted_at IS NULL ORDER BY file_path, id LIMIT 101)"
            " AS page",
            (ids["large"],),
        )
        paths, targets = cur.fetchone()
    content.close()
    conn = psycopg2.connect(stack.part_dsn(APPS), options=session_options(APPS.schema))
    with conn, conn.cursor() as cur:
        params = {"app_id": ids["routed"], "keys": paths, "targets": targets}
        cur.execute(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {ROUTES_MATCHING}", params)
        plan = [row[0].strip() for row in cur.fetchall()]
    conn.close()
    return "; ".join(line for line in plan if "Index" in line or line.startswith(("Buffers", "Execution")))


def analyse_routes(stack: BenchStack) -> None:
    conn = psycopg2.connect(stack.part_dsn(APPS), options=session_options(APPS.schema))
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("ANALYZE routes")
    conn.close()


async def read_whole(url: str, key: str, keep: bool) -> tuple[float, float, int, bytes]:
    """(seconds to the first byte, to the last, bytes, the body when `keep`, else its last 100 bytes)."""
    pieces: list[bytes] = []
    size, first = 0, 0.0
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
        started = time.perf_counter()
        async with session.get(url, headers={"x-api-key": key}) as response:
            if response.status != 200:
                raise SystemExit(f"the whole list answered {response.status}: {await response.text()}")
            async for piece in response.content.iter_any():
                first = first or time.perf_counter() - started
                size += len(piece)
                if keep:
                    pieces.append(piece)
                else:
                    pieces = [(pieces[0] if pieces else b"")[-100:] + piece]
        return first, time.perf_counter() - started, size, b"".join(pieces)


def whole_list(url: str, key: str, expected: int) -> tuple[float, float, float]:
    """The whole list WHOLE_ROUNDS times; medians of (first byte ms, last byte ms), MB. The first
    answer is checked whole: the count, and every candidate once in path order."""
    first_ms, last_ms = [], []
    size = 0
    for round_number in range(WHOLE_ROUNDS):
        first, last, size, body = asyncio.run(read_whole(url, key, keep=round_number == 0))
        if round_number == 0:
            data = orjson.loads(body)["data"]
            keys = [(c["suggestedPath"], c["targetId"]) for c in data["candidates"]]
            if not (data["candidateCount"] == len(keys) == len(set(keys)) == expected and keys == sorted(keys)):
                raise SystemExit(f"the whole list is not the {expected} candidates in order")
        elif not body.endswith(b',"candidateCount":%d}}' % expected):
            raise SystemExit("a whole list ended without its count")
        first_ms.append(first * 1000)
        last_ms.append(last * 1000)
    return statistics.median(first_ms), statistics.median(last_ms), size / 1e6


def memory(stack: BenchStack) -> str:
    parts = []
    for part in (APPS, CONTENT, GATEWAY):
        workers = stack.worker_memory(part)
        parts.append(f"{part.name} " + " + ".join(f"{rss:.0f} MiB (peak {peak:.0f})" for rss, peak in workers))
    return ", ".join(parts)


def main() -> None:
    with bench_stack((GATEWAY, CONTENT, APPS)) as stack:
        say(f"seeding {DOCUMENTS:,} + {SMALL_DOCUMENTS:,} documents with COPY ({load_average()})")
        ids = asyncio.run(seed_apps(stack))
        large = seed_content(stack, ids)
        published = sorted((row[3], row[0]) for row in large if row[6] == "published")
        chosen = random.Random(7).sample(published, ROUTED)
        say(f"routing {ROUTED:,} of the {len(published):,} published documents in a second app")
        asyncio.run(route_documents(stack, ids, [(target_id,) for _, target_id in chosen]))
        say(f"content's first read: {explain_first_page(stack, ids)}")
        say(f"the routed app's route lookup, routes without statistics: {explain_route_lookup(stack, ids)}")
        analyse_routes(stack)
        say(f"the same once analysed: {explain_route_lookup(stack, ids)}")
        gateway, key = stack.url("gateway"), ids["key"]

        def url(app: str, product: str, **params: str) -> str:
            query = urlencode({"productId": ids[product], **params})
            return f"{gateway}/api/v1/apps/{ids[app]}/route-candidates?{query}"

        def page(name: str, address: str, count: int, candidates: int) -> tuple[str, str]:
            answer = asyncio.run(read_whole(address, key, keep=True))[3]
            data = orjson.loads(answer)["data"]
            if (data["candidateCount"], len(data["candidates"])) != (count, candidates) or not data["nextCursor"]:
                raise SystemExit(f"{name}: {data['candidateCount']} / {len(data['candidates'])} candidates")
            latency = measure([Request("GET", address, {"x-api-key": key})], count=PAGE_REQUESTS, warmup=30)
            verdict = f"   ({'meets' if latency.p50_ms <= TARGET_MS else 'MISSES'} {TARGET_MS:g} ms)"
            return name, (
                f"p50 {latency.p50_ms:6.2f} ms   p99 {latency.p99_ms:6.2f} ms   {latency.failures} failed"
                f"   {load_average()}" + (verdict if "first page" in name else "")
            )

        middle = encode_cursor(*published[len(published) // 2])
        total, unrouted = len(published), len(published) - ROUTED
        rows = [
            page("first page, limit=100", url("app", "large", limit="100"), total, 100),
            page("first page, limit=1000", url("app", "large", limit="1000"), total, 1000),
            page("a page from the middle, limit=100", url("app", "large", limit="100", cursor=middle), total, 100),
            page("first page, app routing 10,000, limit=100", url("routed", "large", limit="100"), unrouted, 100),
            page(
                "first page, app routing 10,000, includeRouted",
                url("routed", "large", limit="100", includeRouted="true"),
                total,
                100,
            ),
        ]
        before = memory(stack)
        first, last, size = whole_list(url("app", "small"), key, SMALL_DOCUMENTS)
        rows.append(
            (
                f"whole list, {SMALL_DOCUMENTS:,} candidates ({size:.1f} MB)",
                f"first byte {first:6.1f} ms   last byte {last:7.1f} ms   {load_average()}",
            )
        )
        first, last, size = whole_list(url("app", "large"), key, total)
        rows.append(
            (
                f"whole list, {total:,} candidates ({size:.1f} MB)",
                f"first byte {first:6.1f} ms   last byte {last:7.1f} ms   {load_average()}",
            )
        )
        after = memory(stack)
        rows += [("memory before the whole lists", before), ("memory after them", after)]
        report(
            f"Route candidates of a product with {DOCUMENTS:,} documents ({total:,} published), through the"
            f" gateway, one request at a time ({PAGE_REQUESTS} a page, {WHOLE_ROUNDS} a whole list)",
            rows,
        )


if __name__ == "__main__":
    main()
