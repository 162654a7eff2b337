"""A search's answer as the API shows it, declared once by its response schemas
(libs/common/shapes.py). The answer is the contract's parallel lists, one inner list per query
(always one here); a list not asked for in `include` is empty (`embeddings`: null). Each result's
metadata is its document's fields with the chunk that matched."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from libs.common.shapes import Row, Shape
from services.search import schemas
from services.search.ranking import Hit


@dataclass(frozen=True)
class Result:
    hit: Hit
    content: str


def distance(similarity: float) -> float:
    """Cosine distance, 0 (same direction) to 2; float32 rounding can put a match a hair past 1."""
    return round(min(2.0, max(0.0, 1.0 - similarity)), 7)


def uri(result: Result) -> str:
    """Where the document is read: its public URL, else its path."""
    document = result.hit.document
    return document.source_url or document.file_path or ""


# From a result's row: its document's fields (`DocumentInfo`) with `chunk_index`.
METADATA = Shape(schemas.SearchMetadata, computed={"document_id": lambda row: row["id"]})


def metadata(result: Result) -> dict[str, Any]:
    return METADATA.of({**vars(result.hit.document), "chunk_index": result.hit.chunk_index})


def _column(name: str, of: Callable[[Result], Any]) -> Callable[[Row], list[list[Any]]]:
    """A list of the answer: `of` each result, or empty when `include` leaves it out."""
    return lambda row: [[of(result) for result in row["results"]] if name in row["included"] else []]


# From the row {results, included}: the results best first and the lists asked for, in order.
SEARCH_RESULT = Shape(
    schemas.SearchResult,
    computed={
        "ids": lambda row: [[result.hit.document.id for result in row["results"]]],
        "distances": _column("distances", lambda result: distance(result.hit.similarity)),
        "metadatas": _column("metadatas", metadata),
        "embeddings": lambda row: (
            [[result.hit.vector.tolist() for result in row["results"]]] if "embeddings" in row["included"] else None
        ),
        "documents": _column("documents", lambda result: result.content),
        "uris": _column("uris", uri),
        "data": lambda row: None,
    },
)


def answer(results: list[Result], include: list[str]) -> dict[str, Any]:
    """The contract's answer for one query."""
    return SEARCH_RESULT.of({"results": results, "included": list(dict.fromkeys(include))})
