"""Which of an organization's rows a query may rank: the documents' filterable fields as small
integer codes, and the live rows passing each filter combination, kept until the next change."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

# Row sets of this many filter combinations are kept per organization before starting over.
MAX_CACHED_FILTERS = 16


@dataclass
class DocumentInfo:
    """What a result says of its document (the `metadatas` entry, less the chunk)."""

    id: str
    product_id: str
    status: str
    type: str | None
    title: str
    file_path: str | None
    source_url: str | None
    indexed_at: Any


@dataclass(frozen=True)
class Filters:
    statuses: tuple[str, ...]
    product_id: str | None = None
    type: str | None = None


@dataclass(frozen=True)
class SlotCodes:
    """The filterable fields of every slot as numpy arrays of small integer codes."""

    live: np.ndarray
    status: np.ndarray
    product: np.ndarray
    type: np.ndarray
    codes: dict[str | None, int]

    @classmethod
    def of(cls, documents: list[DocumentInfo | None]) -> SlotCodes:
        codes: dict[str | None, int] = {}

        def code(value: str | None) -> int:
            return codes.setdefault(value, len(codes))

        def column(values: Iterable[int]) -> np.ndarray:
            return np.fromiter(values, dtype=np.int32, count=len(documents))

        return cls(
            live=np.fromiter((info is not None for info in documents), dtype=bool, count=len(documents)),
            status=column(code(info.status if info else None) for info in documents),
            product=column(code(info.product_id if info else None) for info in documents),
            type=column(code(info.type if info else None) for info in documents),
            codes=codes,
        )

    def mask(self, filters: Filters) -> np.ndarray:
        allowed = self.live & np.isin(self.status, [self.codes.get(status, -1) for status in filters.statuses])
        if filters.product_id is not None:
            allowed &= self.product == self.codes.get(filters.product_id, -1)
        if filters.type is not None:
            allowed &= self.type == self.codes.get(filters.type, -1)
        return allowed


class RowFilter:
    """The live rows whose documents pass a filter combination; kept per filters until `clear`
    (the next change), as most queries of an organization repeat a few filters."""

    def __init__(self) -> None:
        self._codes: SlotCodes | None = None
        self._rows: dict[Filters, np.ndarray] = {}

    def clear(self) -> None:
        self._codes = None
        self._rows.clear()

    def rows(
        self, filters: Filters, documents: list[DocumentInfo | None], row_live: np.ndarray, row_slot: np.ndarray
    ) -> np.ndarray:
        """Of the rows (`row_live`, `row_slot`: one entry per row, its slot in `documents`), the live
        ones whose document passes `filters`."""
        rows = self._rows.get(filters)
        if rows is None:
            if self._codes is None:
                self._codes = SlotCodes.of(documents)
            rows = np.flatnonzero(row_live & self._codes.mask(filters)[row_slot])
            if len(self._rows) >= MAX_CACHED_FILTERS:
                self._rows.clear()
            self._rows[filters] = rows
        return rows
