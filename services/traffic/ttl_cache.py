"""A small in-memory cache whose entries expire, bounded in size (the oldest go first)."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")
MISSING = object()


class TtlCache(Generic[K, V]):
    def __init__(self, ttl_seconds: float, max_entries: int = 100_000) -> None:
        self._ttl = ttl_seconds
        self._max = max_entries
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def get(self, key: K) -> V | object:
        """The value, or MISSING when absent or expired."""
        found = self._entries.get(key)
        if found is None or found[0] < time.monotonic():
            return MISSING
        return found[1]

    def put(self, key: K, value: V, ttl_seconds: float | None = None) -> None:
        self._entries[key] = (time.monotonic() + (self._ttl if ttl_seconds is None else ttl_seconds), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
