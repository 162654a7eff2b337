"""Pure parts of ranking: reciprocal rank fusion and the in-memory vectors of an organization."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
import pytest

from services.search.filtering import Filters
from services.search.ranking import best_chunk, rank
from services.search.searching import RRF_K, fuse
from services.search.vectors import PREFIX_MIN_ROWS, OrganizationVectors

PUBLISHED = Filters(statuses=("published",))


def test_fusion_rewards_agreement_and_keeps_single_list_items():
    assert fuse([["a", "b", "c"], ["c", "d"]], 10) == ["c", "a", "b", "d"]
    assert fuse([["a", "b"], []], 10) == ["a", "b"]
    assert fuse([[], ["x", "y"]], 1) == ["x"]
    # A document first in one list and absent from the other ties with one second in both:
    # 1/(k+1) vs 2/(k+2); with k = 60 the first is lower.
    assert 1 / (RRF_K + 1) < 2 / (RRF_K + 2)
    assert fuse([["solo", "both"], ["both"]], 2) == ["both", "solo"]


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(384, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


def change(document_id: str, number: int, vectors: list[np.ndarray], **fields) -> tuple[dict, list[dict]]:
    row = {
        "id": document_id,
        "product_id": fields.get("product_id", "p1"),
        "status": fields.get("status", "published"),
        "type": fields.get("type", "page"),
        "title": document_id,
        "file_path": None,
        "source_url": None,
        "indexed_at": datetime.now(UTC),
        "removed": fields.get("removed", False),
        "change": number,
    }
    chunks = [
        {"document_id": document_id, "chunk_index": n, "embedding": v.astype("<f4").tobytes()}
        for n, v in enumerate(vectors)
    ]
    return row, chunks


def test_results_are_documents_by_their_best_chunk():
    index = OrganizationVectors()
    a, chunks_a = change("a", 1, [unit(1, 0), unit(0.8, 0.6)])
    b, chunks_b = change("b", 2, [unit(0.9, 0.1)])
    index.apply([a, b], chunks_a + chunks_b)
    hits = rank(index, unit(1, 0), PUBLISHED, 10)
    assert [(hit.document.id, hit.chunk_index) for hit in hits] == [("a", 0), ("b", 0)]
    assert abs(hits[0].similarity - 1.0) < 1e-6
    assert index.change == 2


def test_filters_and_removal():
    index = OrganizationVectors()
    rows = [
        change("a", 1, [unit(1)], product_id="p1"),
        change("b", 2, [unit(1, 0.1)], product_id="p2"),
        change("c", 3, [unit(1, 0.2)], status="draft"),
    ]
    index.apply([row for row, _ in rows], [c for _, chunks in rows for c in chunks])
    assert [h.document.id for h in rank(index, unit(1), Filters(("published",), product_id="p2"), 5)] == ["b"]
    assert [h.document.id for h in rank(index, unit(1), Filters(("draft",)), 5)] == ["c"]
    assert [h.document.id for h in rank(index, unit(1), Filters(("published",), type="faq"), 5)] == []
    assert [h.document.id for h in rank(index, unit(1), PUBLISHED, 5)] == ["a", "b"]
    removed, _ = change("a", 4, [], removed=True)
    index.apply([removed], [])
    assert [h.document.id for h in rank(index, unit(1), PUBLISHED, 5)] == ["b"]
    assert best_chunk(index, unit(1), "a") is None


def test_a_replaced_document_keeps_only_its_new_chunks_and_compaction_keeps_results():
    index = OrganizationVectors()
    ids = [str(uuid.uuid4()) for _ in range(50)]
    number = 0
    for round_ in range(60):  # every document rewritten many times: dead rows pile up, then compaction
        rows, chunks = [], []
        for document_id in ids:
            number += 1
            row, document_chunks = change(document_id, number, [unit(1, round_), unit(round_, 1)])
            rows.append(row)
            chunks += document_chunks
        index.apply(rows, chunks)
    assert index.live_rows == 100
    assert index.dead < index.size
    hits = rank(index, unit(59, 1), PUBLISHED, 100)
    assert len(hits) == 50 and len({hit.document.id for hit in hits}) == 50
    assert all(hit.chunk_index == 1 for hit in hits)


def axis(number: int, tilt: float = 0.0) -> np.ndarray:
    """A direction of its own for each document number (below 380 apart), tilted towards axis 0."""
    vector = np.zeros(384, dtype=np.float32)
    vector[2 + number % 380] = 1.0
    vector[0] = tilt
    return vector / np.linalg.norm(vector)


def test_compaction_forgets_removed_documents_and_keeps_the_rest_findable():
    index = OrganizationVectors()
    rows, chunks = [], []
    for number in range(1, 801):
        row, document_chunks = change(f"d{number}", number, [axis(number), axis(number, tilt=2.0)])
        rows.append(row)
        chunks += document_chunks
    index.apply(rows, chunks)
    removals = [change(f"d{number}", 800 + number, [], removed=True)[0] for number in range(1, 781)]
    index.apply(removals, [])  # 1,560 dead rows against 40 live: compacted
    assert (index.size, index.dead, len(index.documents)) == (40, 0, 20)
    assert sorted(index.slots) == sorted(f"d{number}" for number in range(781, 801))
    [hit] = rank(index, axis(790), PUBLISHED, 1)
    assert (hit.document.id, hit.chunk_index) == ("d790", 0)
    assert best_chunk(index, axis(800, tilt=5.0), "d800").chunk_index == 1
    everything = rank(index, axis(0, tilt=1.0), PUBLISHED, 100)
    assert sorted(hit.document.id for hit in everything) == sorted(index.slots)


def test_growing_in_place_keeps_rows_and_leaves_earlier_hits_intact():
    index = OrganizationVectors()
    first, chunks = change("first", 1, [unit(1, 0)])
    index.apply([first], chunks)
    [hit] = rank(index, unit(1, 0), PUBLISHED, 1)
    for number in range(2, 400):  # far past the first capacity: the arrays are reallocated many times
        row, chunks = change(f"d{number}", number, [unit(0, 1, number / 400)])
        index.apply([row], chunks)
    assert np.array_equal(hit.vector, unit(1, 0))
    assert [h.document.id for h in rank(index, unit(1, 0), PUBLISHED, 2)][0] == "first"
    assert best_chunk(index, unit(0, 1, 0.5), "d200").chunk_index == 0
    assert index.live_rows == 399


def clustered(rng: np.random.Generator, rows: int, centres: int = 400) -> np.ndarray:
    """Unit vectors around `centres` directions whose spread falls off across the coordinates,
    as sentence embeddings' does."""
    scales = np.linspace(1.0, 0.05, 384, dtype=np.float32)
    centre = rng.standard_normal((centres, 384), dtype=np.float32) * scales
    vectors = (
        centre[rng.integers(centres, size=rows)] + 0.3 * rng.standard_normal((rows, 384), dtype=np.float32) * scales
    )
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.slow
def test_a_large_organization_is_ranked_as_by_a_full_scan():
    """Past PREFIX_MIN_ROWS the rows are kept in principal axes and scanned by a prefix first: the
    top documents are those of an exact scan over the stored vectors, with their exact scores and
    vectors, for documents loaded before and after the axes were found."""
    rng = np.random.default_rng(7)
    documents, per_document = 14_000, 3  # 42,000 rows
    stored = clustered(rng, documents * per_document)
    index = OrganizationVectors()
    for first in range(0, documents, 2_000):  # in reads, as a cold replica loads
        rows, chunks = [], []
        for number in range(first, first + 2_000):
            row, document_chunks = change(f"d{number}", number + 1, list(stored[number * 3 : number * 3 + 3]))
            rows.append(row)
            chunks += document_chunks
        index.apply(rows, chunks)
    assert index.basis is not None and index.basis_rows >= PREFIX_MIN_ROWS
    queries = clustered(rng, 30) * 0.8 + stored[rng.integers(len(stored), size=30)] * 0.2
    found = 0
    for query in queries:
        query = query / np.linalg.norm(query)
        best = (stored @ query).reshape(documents, per_document).max(axis=1)
        exact = [f"d{number}" for number in np.argsort(-best, kind="stable")[:10]]
        hits = rank(index, query, PUBLISHED, 50)[:10]  # as a query asks (searching.MIN_CANDIDATES)
        found += len({hit.document.id for hit in hits} & set(exact))
        for hit in hits:
            number = int(hit.document.id[1:])
            original = stored[number * 3 + hit.chunk_index]
            assert abs(hit.similarity - float(original @ query)) < 1e-5
            assert np.allclose(hit.vector, original, atol=1e-5)
    assert found / (10 * len(queries)) >= 0.99
    late, chunks = change("late", documents + 1, [unit(1, 2, 3)])  # stored turned like the rest
    index.apply([late], chunks)
    assert rank(index, unit(1, 2, 3), PUBLISHED, 1)[0].document.id == "late"
    assert best_chunk(index, unit(1, 2, 3), "late").similarity > 0.99999
