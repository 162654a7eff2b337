"""Ranking an organization's vectors against a query: every document by its best chunk, exact
scores, and past PREFIX_MIN_ROWS rows a first pass over the leading coordinates of the rows kept
in principal axes (services/search/vectors.py) before the exact one."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from services.search.embedding import DIMENSIONS
from services.search.filtering import DocumentInfo, Filters
from services.search.scan import product
from services.search.vectors import OrganizationVectors

# Leading coordinates read by the first pass: a quarter of each row, the strided read costing
# about 40% of a full scan.
PREFIX_DIMENSIONS = 96
# Rows scored exactly after the first pass: at least this many, and ten times the rows a ranking
# takes, so that near-ties of the first pass are settled by exact scores.
SHORTLIST_ROWS = 2_048


@dataclass(frozen=True)
class Hit:
    document: DocumentInfo
    chunk_index: int
    similarity: float
    vector: np.ndarray


def _turned(vectors: OrganizationVectors, query: np.ndarray) -> np.ndarray:
    """A query in the coordinates the rows are kept in."""
    turned: np.ndarray = query if vectors.basis is None else query @ vectors.basis
    return turned


def _hits(vectors: OrganizationVectors, rows: np.ndarray, scores: np.ndarray) -> list[Hit]:
    """Hits of `rows`, with their vectors as stored (copied: no view of the matrix outlives a
    call, as it may be reallocated)."""
    stored = vectors.matrix[rows] if vectors.basis is None else vectors.matrix[rows] @ vectors.basis.T
    hits = []
    for row, score, vector in zip(rows.tolist(), scores.tolist(), stored, strict=True):
        info = vectors.documents[vectors.row_slot[row]]
        assert info is not None
        hits.append(Hit(info, int(vectors.row_chunk[row]), score, vector))
    return hits


def _scores(
    vectors: OrganizationVectors, query: np.ndarray, candidates: np.ndarray, dimensions: int = DIMENSIONS
) -> np.ndarray:
    """The candidates' products with the query over their first `dimensions` coordinates."""
    size = vectors.size
    matrix, query = vectors.matrix[:size, :dimensions], query[:dimensions]
    # A narrow filter scores only its rows; otherwise one product over all rows is faster.
    if len(candidates) == size:
        return product(matrix, query)
    if len(candidates) < size // 2:
        return product(matrix[candidates], query)
    scores: np.ndarray = product(matrix, query)[candidates]
    return scores


def _shortlist(
    vectors: OrganizationVectors, query: np.ndarray, candidates: np.ndarray, take: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rows to rank and their exact scores: every candidate, or for a large organization the
    best of a first pass over the leading coordinates."""
    shortlist = max(SHORTLIST_ROWS, 10 * take)
    if vectors.basis is None or len(candidates) <= 4 * shortlist:
        return candidates, _scores(vectors, query, candidates)
    first = _scores(vectors, query, candidates, PREFIX_DIMENSIONS)
    rows = candidates[np.sort(np.argpartition(-first, shortlist - 1)[:shortlist])]
    scores: np.ndarray = vectors.matrix[rows] @ query
    return rows, scores


def rank(vectors: OrganizationVectors, query: np.ndarray, filters: Filters, wanted: int) -> list[Hit]:
    """The `wanted` documents nearest to `query` that pass `filters`, each by its best chunk,
    best first. Fewer only when fewer documents pass."""
    if vectors.live_rows == 0 or wanted <= 0:
        return []
    candidates = vectors.candidates(filters)
    if not len(candidates):
        return []
    query = _turned(vectors, query)
    take = wanted * 4
    rows, scores = _shortlist(vectors, query, candidates, take)
    take = min(len(rows), take)
    # Take the best rows, enough to find `wanted` distinct documents; take more if chunks of
    # the same documents crowd the top.
    while True:
        top = np.argpartition(-scores, take - 1)[:take] if take < len(rows) else np.arange(len(rows))
        top = top[np.argsort(-scores[top], kind="stable")]
        chosen: list[int] = []  # positions in `rows` of each document's best row
        seen = set()
        for index in top:
            slot = int(vectors.row_slot[rows[index]])
            if slot in seen:
                continue
            seen.add(slot)
            chosen.append(int(index))
            if len(chosen) == wanted:
                return _hits(vectors, rows[chosen], scores[chosen])
        if take < len(rows):
            take = min(len(rows), take * 4)
        elif len(rows) < len(candidates):  # a shortlist crowded by a few documents: score them all
            rows, scores = candidates, _scores(vectors, query, candidates)
        else:
            return _hits(vectors, rows[chosen], scores[chosen])


def best_chunk(vectors: OrganizationVectors, query: np.ndarray, document_id: str) -> Hit | None:
    """A document's chunk nearest to `query`."""
    slot = vectors.slots.get(document_id)
    rows = vectors.rows.get(slot) if slot is not None else None
    if rows is None or not len(rows):
        return None
    scores = vectors.matrix[rows] @ _turned(vectors, query)
    best = int(np.argmax(scores))
    return _hits(vectors, rows[[best]], scores[[best]])[0]
