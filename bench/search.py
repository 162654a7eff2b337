"""Semantic search through the gateway: query latency at 10,000 and 100,000 chunks against the
in-process floor, indexing throughput and lag, query latency under indexing, and memory.

Indexing: pages of 60-400 words are created through the public site-pages API, published, and
the clock runs until the search service (indexing from the content events, as deployed) has
reported every one indexed to the content service: real embedding. While it indexes, queries
run one at a time, four a second, against the 10,000-chunk organization; the same queries run
again once it is idle, and the two p99s are compared. `--pages 10000` measures a full 10,000-page import.

Queries: an organization's index is loaded directly into the search schema with COPY, because
embedding 100,000 chunks takes longer than a benchmark should. The chunks' texts are made from
a vocabulary of product words, and their vectors are real model vectors of 200 such texts, each
reused with a little noise, so the vectors spread like real ones. Queries are 40
natural-language questions. Each size runs ROUNDS rounds; a round measures the gateway (one at a
time) and then the floor: the same query embedded and scanned exactly over the same vectors in
this process, the least any search could cost. Medians of the rounds, and their ratio, are
reported, with the machine's load, since other work may share the two cores.

Memory: the search worker's resident set (and its peak) after each size has been searched;
`--large` adds an organization of 500,000 chunks.

    python -m deploy.stack exec -- python -m bench.search [--pages N] [--large] [--indexing-threads N]
        [--only queries|indexing]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
import uuid
from datetime import UTC, datetime

import numpy as np
import psycopg2

from bench.common import BenchStack, Request, bench_stack, copy_rows, load_average, measure, report, say
from bench.search_indexing import QUERIES, indexing_rows, organization, text
from libs.common.db import session_options
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Organization
from libs.contract.parts import CONTENT, GATEWAY, SEARCH
from services.search.app import shared_embedder
from services.search.chunking import model_text
from services.search.filtering import Filters
from services.search.ranking import rank
from services.search.scan import scan_on_one_thread
from services.search.searching import MIN_CANDIDATES
from services.search.vectors import OrganizationVectors

SIZES = (10_000, 100_000)
LARGE = 500_000
ROUNDS = 5
CHUNKS_PER_DOCUMENT = 3
DISTINCT_VECTORS = 200
NOISE = 0.15
INDEXING_DOCUMENTS = 300
DOCUMENT_COLUMNS = (
    "id",
    "organization_id",
    "product_id",
    "status",
    "type",
    "title",
    "file_path",
    "source_url",
    "source_version",
    "content_digest",
    "indexed_at",
)


def base_vectors(rng: random.Random) -> tuple[list[str], np.ndarray]:
    say(f"embedding {DISTINCT_VECTORS:,} chunk texts with the model")
    texts = [text(rng, rng.randint(40, 120)) for _ in range(DISTINCT_VECTORS)]
    titles = [text(rng, 4) for _ in texts]
    vectors = shared_embedder().embed([model_text(title, body) for title, body in zip(titles, texts, strict=True)])
    return texts, vectors


def load_index(
    stack: BenchStack,
    organization_id: str,
    product_id: str,
    chunks: int,
    base: tuple[list[str], np.ndarray],
    rng: random.Random,
) -> np.ndarray:
    """`chunks` chunks of the organization straight into the search schema; returns their vectors."""
    texts, vectors = base
    np_rng = np.random.default_rng(rng.getrandbits(32))
    now = datetime.now(UTC)
    documents, chunk_rows = [], []
    matrix = np.empty((chunks // CHUNKS_PER_DOCUMENT * CHUNKS_PER_DOCUMENT, vectors.shape[1]), dtype=np.float32)
    for number in range(chunks // CHUNKS_PER_DOCUMENT):
        document_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        title = text(rng, 4)
        documents.append(
            (
                document_id,
                organization_id,
                product_id,
                "published",
                "page",
                title,
                f"/docs/page-{number}",
                None,
                now,
                None,
                now,
            )
        )
        for index in range(CHUNKS_PER_DOCUMENT):
            pick = rng.randrange(DISTINCT_VECTORS)
            vector = vectors[pick] + np_rng.normal(0, NOISE / np.sqrt(vectors.shape[1]), vectors.shape[1])
            vector = (vector / np.linalg.norm(vector)).astype("<f4")
            matrix[len(chunk_rows)] = vector
            chunk_rows.append((document_id, index, organization_id, title, texts[pick], "\\x" + vector.tobytes().hex()))
    conn = psycopg2.connect(stack.part_dsn(SEARCH), options=session_options(SEARCH.schema))
    with conn, conn.cursor() as cur:
        copy_rows(cur, "documents", DOCUMENT_COLUMNS, documents)
        cur.execute(
            "CREATE TEMPORARY TABLE staged (document_id uuid, chunk_index int, organization_id uuid,"
            " title text, content text, embedding bytea) ON COMMIT DROP"
        )
        copy_rows(
            cur,
            "staged",
            ("document_id", "chunk_index", "organization_id", "title", "content", "embedding"),
            chunk_rows,
        )
        cur.execute(
            "INSERT INTO chunks (document_id, chunk_index, organization_id, content, embedding, lexemes)"
            " SELECT document_id, chunk_index, organization_id, content, embedding,"
            " setweight(to_tsvector('english', title), 'A') || to_tsvector('english', content) FROM staged"
        )
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("VACUUM ANALYZE documents")
        cur.execute("VACUUM ANALYZE chunks")
    conn.close()
    return matrix


def floor_ms(matrix: np.ndarray, rounds: int = 2) -> float:
    """Median time, in this process, to embed a query and find its nearest 200 rows exactly."""
    embedder = shared_embedder()
    timings = []
    for _ in range(rounds):
        for query in QUERIES:
            started = time.perf_counter()
            scores = matrix @ embedder.embed([query])[0]
            np.argpartition(-scores, 199)[:200]
            timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def dense_ranking(matrix: np.ndarray) -> tuple[str, str]:
    """The service's dense ranking (OrganizationVectors, as a replica holds the organization)
    against an exact scan of the same vectors: time of each, and recall@10 of the first."""
    embedder = shared_embedder()
    index = OrganizationVectors()
    documents = len(matrix) // CHUNKS_PER_DOCUMENT
    index.apply(
        [
            {
                "id": str(number),
                "product_id": "p",
                "status": "published",
                "type": "page",
                "title": "",
                "file_path": None,
                "source_url": None,
                "indexed_at": None,
                "removed": False,
                "change": number + 1,
            }
            for number in range(documents)
        ],
        [
            {
                "document_id": str(row // CHUNKS_PER_DOCUMENT),
                "chunk_index": row % CHUNKS_PER_DOCUMENT,
                "embedding": matrix[row].tobytes(),
            }
            for row in range(len(matrix))
        ],
    )
    ranked, exact, found = [], [], 0
    for query in embedder.embed(list(QUERIES)):
        started = time.perf_counter()
        hits = rank(index, query, Filters(("published",)), MIN_CANDIDATES)[:10]
        ranked.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        best = (matrix @ query).reshape(documents, CHUNKS_PER_DOCUMENT).max(axis=1)
        top = np.argpartition(-best, 9)[:10]
        exact.append((time.perf_counter() - started) * 1000)
        found += len({int(hit.document.id) for hit in hits} & set(top.tolist()))
    method = "exact" if index.basis is None else "principal-axes prefix, then exact"
    return "dense ranking in-process", (
        f"{method}: p50 {statistics.median(ranked):.2f} ms, full scan p50 {statistics.median(exact):.2f} ms,"
        f" recall@10 against the full scan {found / (10 * len(QUERIES)):.3f}"
    )


def query_rounds(stack: BenchStack, organization: Organization, key: str, matrix: np.ndarray) -> list[tuple[str, str]]:
    path = f"/api/v1/content/search/{organization.id}"
    requests = [Request("POST", stack.url("gateway") + path, {"x-api-key": key}, {"query": q}) for q in QUERIES]
    measure(requests, concurrency=1, count=40, warmup=40)
    gateway_p50, gateway_p99, direct_p50, floors = [], [], [], []
    for _ in range(ROUNDS):
        single = measure(requests, concurrency=1, count=120, warmup=0)
        assert single.failures == 0, "failed search requests"
        gateway_p50.append(single.p50_ms)
        gateway_p99.append(single.p99_ms)
        token = {INTERNAL_TOKEN_HEADER: stack.internal_token(organization)}  # fresh each round: tokens expire
        direct = [Request("POST", stack.url("search") + path, token, {"query": query}) for query in QUERIES]
        direct_p50.append(measure(direct, concurrency=1, count=120, warmup=0).p50_ms)
        floors.append(floor_ms(matrix))
    p50, floor = statistics.median(gateway_p50), statistics.median(floors)
    parallel = measure(requests, concurrency=4, count=400, warmup=0)
    return [
        (
            "one at a time",
            f"p50 {p50:6.2f} ms (rounds {', '.join(f'{v:.1f}' for v in gateway_p50)})"
            f"   p99 {statistics.median(gateway_p99):6.2f} ms   {load_average()}",
        ),
        ("the search service directly", f"p50 {statistics.median(direct_p50):6.2f} ms"),
        ("floor: embed + exact scan", f"p50 {floor:6.2f} ms   gateway / floor {p50 / floor:.2f}"),
        (
            "four at a time",
            f"p50 {parallel.p50_ms:6.2f} ms   p99 {parallel.p99_ms:6.2f} ms   {parallel.requests_per_second:.0f} req/s",
        ),
        dense_ranking(matrix),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=INDEXING_DOCUMENTS, help="pages to index through the API")
    parser.add_argument("--large", action="store_true", help="also measure memory at 500,000 chunks")
    parser.add_argument("--indexing-threads", type=int, help="SEARCH_INDEXING_THREADS of the service")
    parser.add_argument("--only", choices=("queries", "indexing"), help="measure only queries, or only indexing")
    args = parser.parse_args()
    rng = random.Random(20261125)
    environ = {"SEARCH_INDEXING_THREADS": str(args.indexing_threads)} if args.indexing_threads else {}
    scan_on_one_thread()  # the floor scans as the service does
    sizes = (*SIZES[: 1 if args.only == "indexing" else None], *((LARGE,) if args.large else ()))
    with bench_stack((GATEWAY, CONTENT, SEARCH), environ) as stack:
        base = base_vectors(rng)
        gateway = stack.url("gateway")
        rows: list[tuple[str, str]] = []

        def add(new: list[tuple[str, str]]) -> None:
            """Keep rows for the report, and show them now: a long run is read as it goes."""
            rows.extend(new)
            for name, value in new:
                say(f"  {name}: {value}")

        for size in sizes:
            slug = f"bench-search-{size}"
            key, organization_id, product_id = asyncio.run(organization(stack, slug))
            say(f"loading {size:,} chunks ({load_average()})")
            matrix = load_index(stack, organization_id, product_id, size, base, rng)
            url = f"{gateway}/api/v1/content/search/{organization_id}"
            if size in SIZES and args.only != "indexing":
                caller = Organization(organization_id, slug, slug.capitalize())
                add([(f"{size:,} chunks, {name}", value) for name, value in query_rounds(stack, caller, key, matrix)])
            else:
                measure([Request("POST", url, {"x-api-key": key}, {"query": QUERIES[0]})], count=5, warmup=1)
            [(resident, peak)] = stack.worker_memory(SEARCH)
            add([(f"memory after {size:,} chunks", f"resident {resident:.0f} MiB, peak {peak:.0f} MiB")])
            del matrix
            if size == SIZES[0] and args.only != "queries":
                add(indexing_rows(stack, rng, args.pages, url, key))
        report("POST /api/v1/content/search/{orgId} through the gateway, and indexing from content events", rows)


if __name__ == "__main__":
    main()
