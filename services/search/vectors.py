"""Each organization's chunk vectors in memory, kept current from the database's change numbers.

A query scans the vectors of the organization (a float32 matrix product: about 2 ms for 10,000
chunks), which lets any filter apply before ranking. The matrix grows by appending; a changed
document's old rows are only marked dead, and the matrix is compacted in place when they reach
a quarter of the live ones.

Past PREFIX_MIN_ROWS rows the matrix no longer fits the CPU's cache and a full scan is bound by
memory bandwidth (about 5 ms per 100,000 rows). The rows are then kept turned to the
organization's principal axes (an orthonormal turn, so every dot product is unchanged), the scan
reads only the leading PREFIX_DIMENSIONS of each row, where most of the rows' differences lie,
and the best SHORTLIST_ROWS or more of that pass are scored exactly. Scores are always exact;
what the first pass may miss is measured as recall against the full scan (docs/performance.md).
The products themselves, their threads and the axes' arithmetic are services/search/scan.py;
which rows a query may rank, services/search/filtering.py; the ranking, services/search/ranking.py.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from libs.common.db import Row
from services.search.embedding import DIMENSIONS
from services.search.filtering import DocumentInfo, Filters, RowFilter
from services.search.scan import principal_axes

# Rows moved at a time when compacting (about 100 MB of vectors).
COMPACTION_SLICE = 65_536
# Live rows from which the matrix is kept in principal axes and scanned by a prefix first (below
# it, 48 MB or less, a full scan stays in the CPU's cache).
PREFIX_MIN_ROWS = 32_768
# Rows sampled to find the principal axes.
AXES_SAMPLE = 20_000


@dataclass
class OrganizationVectors:
    change: int = 0
    size: int = 0
    dead: int = 0
    matrix: np.ndarray = field(default_factory=lambda: np.empty((0, DIMENSIONS), dtype=np.float32))
    row_slot: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    row_chunk: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    row_live: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    documents: list[DocumentInfo | None] = field(default_factory=list)  # by slot; None once removed
    slots: dict[str, int] = field(default_factory=dict)
    rows: dict[int, np.ndarray] = field(default_factory=dict)  # slot -> its row numbers
    # The turn to principal axes the rows are kept in (rows and queries are multiplied by it),
    # and the live rows it was found from; none for a small organization.
    basis: np.ndarray | None = None
    basis_rows: int = 0
    _filter: RowFilter = field(default_factory=RowFilter)

    @property
    def live_rows(self) -> int:
        return self.size - self.dead

    def _reserve(self, extra: int) -> None:
        needed = self.size + extra
        if needed <= len(self.matrix):
            return
        # Grow by an eighth: doubling would, at 500,000 chunks, reserve 770 MB for one more document.
        capacity = max(needed, len(self.matrix) + len(self.matrix) // 8, 64)
        # In place: realloc moves a large block's pages rather than copying them, so growing never
        # holds two matrices at once. Hence no view of these arrays outlives a call (Hit copies).
        self.matrix.resize((capacity, DIMENSIONS), refcheck=False)
        for rows in (self.row_slot, self.row_chunk, self.row_live):
            rows.resize(capacity, refcheck=False)

    def _drop_rows(self, slot: int) -> None:
        rows = self.rows.pop(slot, None)
        if rows is not None and len(rows):
            self.row_live[rows] = False
            self.dead += len(rows)

    def apply(self, documents: list[Row], chunks: list[Row]) -> None:
        """Take in what changed: documents (removed ones included) and the live ones' chunk vectors."""
        vectors_of: dict[str, list[Row]] = {}
        for chunk in chunks:
            vectors_of.setdefault(str(chunk["document_id"]), []).append(chunk)
        for row in documents:
            document_id = str(row["id"])
            slot = self.slots.get(document_id)
            if slot is not None:
                self._drop_rows(slot)
            self.change = max(self.change, int(row["change"]))
            if row["removed"]:
                if slot is not None:
                    self.documents[slot] = None
                    del self.slots[document_id]
                continue
            info = DocumentInfo(
                id=document_id,
                product_id=str(row["product_id"]),
                status=row["status"],
                type=row["type"],
                title=row["title"],
                file_path=row["file_path"],
                source_url=row["source_url"],
                indexed_at=row["indexed_at"],
            )
            if slot is None:
                slot = len(self.documents)
                self.documents.append(info)
                self.slots[document_id] = slot
            else:
                self.documents[slot] = info
            self._append(slot, vectors_of.get(document_id, []))
        self._filter.clear()
        # Dead rows are compacted away once they are a quarter of the live ones, so an
        # organization's matrix stays within 1.25 times its live rows (the memory arithmetic
        # of docs/performance.md counts on it).
        if self.dead > max(self.live_rows // 4, 1024):
            self._compact()
        # Axes found again whenever the organization has doubled, so they follow its content.
        if self.live_rows >= max(PREFIX_MIN_ROWS, 2 * self.basis_rows):
            self._find_axes()

    def _append(self, slot: int, chunks: list[Row]) -> None:
        if not chunks:
            return
        self._reserve(len(chunks))
        start, end = self.size, self.size + len(chunks)
        vectors = np.frombuffer(b"".join(bytes(c["embedding"]) for c in chunks), dtype="<f4").reshape(
            len(chunks), DIMENSIONS
        )
        self.matrix[start:end] = vectors if self.basis is None else vectors @ self.basis
        self.row_slot[start:end] = slot
        self.row_chunk[start:end] = [c["chunk_index"] for c in chunks]
        self.row_live[start:end] = True
        self.rows[slot] = np.arange(start, end)
        self.size = end

    def _compact(self) -> None:
        """Drop dead rows and the slots of removed documents; renumber what stays."""
        keep = np.flatnonzero(self.row_live[: self.size])
        present = [slot for slot, info in enumerate(self.documents) if info is not None]
        renumbered = np.full(len(self.documents), -1, dtype=np.int32)
        renumbered[present] = np.arange(len(present), dtype=np.int32)
        self.documents = [self.documents[slot] for slot in present]
        self.slots = {info.id: slot for slot, info in enumerate(self.documents) if info is not None}
        # Rows move down in place, a slice at a time, so compaction holds one slice, not a second
        # matrix: every kept row moves to a position at or below its own, and a slice is read
        # whole before it is written.
        for start in range(0, len(keep), COMPACTION_SLICE):
            part = keep[start : start + COMPACTION_SLICE]
            self.matrix[start : start + len(part)] = self.matrix[part]
        size = len(keep)
        self.row_slot[:size] = renumbered[self.row_slot[keep]]
        self.row_chunk[:size] = self.row_chunk[keep]
        self.row_live[:size], self.row_live[size:] = True, False
        self.size, self.dead = size, 0
        order = np.argsort(self.row_slot[:size], kind="stable")
        slots, starts = np.unique(self.row_slot[order], return_index=True)
        groups = np.split(order, starts[1:]) if len(order) else []
        self.rows = {int(slot): rows for slot, rows in zip(slots, groups, strict=True)}

    def _find_axes(self) -> None:
        """Turn the rows, in place, to the principal axes of a sample of the live ones, the axis
        along which they differ most first."""
        live = np.flatnonzero(self.row_live[: self.size])
        turn = principal_axes(self.matrix[live[:: max(1, len(live) // AXES_SAMPLE)]])
        for start in range(0, self.size, COMPACTION_SLICE):  # a slice at a time, as compaction does
            block = self.matrix[start : start + COMPACTION_SLICE]
            block[:] = block @ turn
        self.basis = turn if self.basis is None else self.basis @ turn
        self.basis_rows = self.live_rows

    def candidates(self, filters: Filters) -> np.ndarray:
        """The live rows whose documents pass `filters`."""
        size = self.size
        return self._filter.rows(filters, self.documents, self.row_live[:size], self.row_slot[:size])


class VectorCache:
    """Organizations' vectors, least recently searched dropped first beyond `max_chunks` in all."""

    def __init__(self, max_chunks: int) -> None:
        self._max_chunks = max_chunks
        self._organizations: OrderedDict[str, OrganizationVectors] = OrderedDict()

    def get(self, organization_id: str) -> OrganizationVectors:
        vectors = self._organizations.get(organization_id)
        if vectors is None:
            vectors = self._organizations[organization_id] = OrganizationVectors()
        self._organizations.move_to_end(organization_id)
        return vectors

    @property
    def chunks(self) -> int:
        """Chunk vectors held, over all organizations."""
        return sum(vectors.live_rows for vectors in self._organizations.values())

    def trim(self) -> list[str]:
        """Drop least recently searched organizations while over the budget (never the latest);
        returns their ids."""
        total = sum(vectors.live_rows for vectors in self._organizations.values())
        dropped: list[str] = []
        while total > self._max_chunks and len(self._organizations) > 1:
            organization_id, vectors = self._organizations.popitem(last=False)
            total -= vectors.live_rows
            dropped.append(organization_id)
        return dropped
