"""Resident memory of a search process holding one organization's vectors, without the stack.

A process loads the model (services.search.app.shared_embedder), then takes in `--chunks` chunk
vectors (3 a document) the way a search worker does on a cold query: OrganizationVectors.apply,
LOAD_DOCUMENTS documents a read. It prints its resident set and peak after each step; the rows
are made in memory, so the numbers are the worker's own, not a database client's.

    python -m bench.search_memory --chunks 100000
    python -m bench.search_memory --chunks 500000
"""

from __future__ import annotations

import argparse
import uuid
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench.common import say
from services.search.app import shared_embedder
from services.search.embedding import DIMENSIONS
from services.search.filtering import Filters
from services.search.ranking import rank
from services.search.searching import LOAD_DOCUMENTS
from services.search.vectors import OrganizationVectors

CHUNKS_PER_DOCUMENT = 3


def memory() -> str:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    resident, peak = (int(fields[name].split()[0]) / 1024 for name in ("VmRSS", "VmHWM"))
    return f"resident {resident:.0f} MiB, peak {peak:.0f} MiB"


def read(first: int, count: int, rng: np.random.Generator) -> tuple[list[dict], list[dict]]:
    """One load read: `count` documents from number `first` on, as store.changes_since returns them."""
    now = datetime.now(UTC)
    documents, chunks = [], []
    for number in range(first, first + count):
        document_id = str(uuid.UUID(int=number + 1))
        documents.append(
            {
                "id": document_id,
                "product_id": str(uuid.UUID(int=7)),
                "status": "published",
                "type": "page",
                "title": f"Page {number} of the product documentation",
                "file_path": f"/docs/page-{number}",
                "source_url": None,
                "indexed_at": now,
                "removed": False,
                "change": number + 1,
            }
        )
        vectors = rng.standard_normal((CHUNKS_PER_DOCUMENT, DIMENSIONS), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        chunks += [
            {"document_id": document_id, "chunk_index": index, "embedding": vector.astype("<f4").tobytes()}
            for index, vector in enumerate(vectors)
        ]
    return documents, chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    args = parser.parse_args()
    say(f"started: {memory()}")
    embedder = shared_embedder()
    say(f"model loaded: {memory()}")
    vectors = OrganizationVectors()
    rng = np.random.default_rng(1)
    total = args.chunks // CHUNKS_PER_DOCUMENT
    for first in range(0, total, LOAD_DOCUMENTS):
        vectors.apply(*read(first, min(LOAD_DOCUMENTS, total - first), rng))
    rank(vectors, embedder.embed(["how do I cancel my subscription"])[0], Filters(("published",)), 50)
    say(f"{vectors.live_rows:,} chunks loaded and searched: {memory()}")


if __name__ == "__main__":
    main()
