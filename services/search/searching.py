"""A query, from text to ranked documents: dense and lexical rankings fused by reciprocal rank.

Three things run at once: the query's embedding (in a thread of the query pool, never behind
indexing work), the organization's full-text ranking in PostgreSQL, and the check that this
replica's vectors of the organization are current. The vectors are scanned as soon as the
query is embedded, the two rankings fused, and the text of each result's best chunk read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import aiopg
import numpy as np

from libs.common.db import cursor
from services.search import ranking as dense_vectors
from services.search import store
from services.search.embedding import Embedder
from services.search.filtering import Filters
from services.search.ranking import Hit
from services.search.shapes import Result
from services.search.vectors import OrganizationVectors, VectorCache

# Reciprocal rank fusion: score = sum over rankings of 1 / (RRF_K + rank), rank from 1. 60 is
# the constant of the method's paper; it keeps one list's top spot from drowning the other list.
RRF_K = 60
# Each ranking contributes at least this many candidates, so fusion can lift a document that
# one ranking puts a little below the cut.
MIN_CANDIDATES = 50
# Documents read per round when loading an organization's vectors: the rows of a read are held
# as Python objects (about 2 KB a chunk) only until they are copied into the matrix.
LOAD_DOCUMENTS = 2_000


def fuse(rankings: Sequence[Sequence[str]], limit: int) -> list[str]:
    """Reciprocal rank fusion of rankings of ids, best first; ties keep the first ranking's order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    order = {key: index for index, key in enumerate(key for ranking in rankings for key in ranking)}
    return sorted(scores, key=lambda key: (-scores[key], order[key]))[:limit]


class Searcher:
    def __init__(self, pool: aiopg.Pool, embedder: Embedder, cache: VectorCache, threads: int = 2) -> None:
        self._pool = pool
        self._embedder = embedder
        self._cache = cache
        self._locks: dict[str, asyncio.Lock] = {}
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="search-query")

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _embed(self, text: str) -> np.ndarray:
        loop = asyncio.get_running_loop()
        vectors = await loop.run_in_executor(self._executor, self._embedder.embed, [text])
        query: np.ndarray = vectors[0]
        return query

    async def current_vectors(self, organization_id: str) -> OrganizationVectors:
        """This replica's vectors of the organization, brought up to the database's latest change."""
        vectors = self._cache.get(organization_id)
        async with cursor(self._pool) as cur:
            latest = await store.latest_change(cur, organization_id)
        if latest <= vectors.change:
            return vectors
        lock = self._locks.setdefault(organization_id, asyncio.Lock())
        async with lock:  # one load per organization at a time; the others wait for it
            while latest > vectors.change:
                async with cursor(self._pool) as cur:
                    documents, chunks = await store.changes_since(cur, organization_id, vectors.change, LOAD_DOCUMENTS)
                if not documents:
                    break
                vectors.apply(documents, chunks)
                for dropped in self._cache.trim():
                    self._locks.pop(dropped, None)
        return vectors

    async def _lexical(self, organization_id: str, text: str, filters: Filters, limit: int) -> list[str]:
        async with cursor(self._pool) as cur:
            return await store.lexical_ranking(
                cur, organization_id, text, list(filters.statuses), filters.product_id, filters.type, limit
            )

    async def search(self, organization_id: str, text: str, filters: Filters, n_results: int) -> list[Result]:
        candidates = max(n_results, MIN_CANDIDATES)

        async def dense_ranking() -> tuple[np.ndarray, OrganizationVectors, list[Hit]]:
            query, vectors = await asyncio.gather(self._embed(text), self.current_vectors(organization_id))
            return query, vectors, dense_vectors.rank(vectors, query, filters, candidates)

        # The scan starts as soon as the query is embedded, while PostgreSQL may still rank the text.
        (query, vectors, dense), lexical = await asyncio.gather(
            dense_ranking(), self._lexical(organization_id, text, filters, candidates)
        )
        best = {hit.document.id: hit for hit in dense}
        ranked = fuse([list(best), lexical], n_results)
        hits: list[Hit] = []
        for document_id in ranked:
            hit = best.get(document_id) or dense_vectors.best_chunk(vectors, query, document_id)
            if hit is not None:  # a lexical match this replica's vectors do not hold yet
                hits.append(hit)
        async with cursor(self._pool) as cur:
            contents = await store.chunk_contents(cur, [(hit.document.id, hit.chunk_index) for hit in hits])
        return [
            Result(hit, contents[(hit.document.id, hit.chunk_index)])
            for hit in hits
            if (hit.document.id, hit.chunk_index) in contents  # removed since the vectors were read
        ]
