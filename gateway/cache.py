"""A bounded in-process cache with a time-to-live per entry.

The gateway answers most requests from memory (design brief: one Redis or database round trip
per request costs a third of the throughput), so everything it looks up per request lives here.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class TtlCache(Generic[V]):
    """Entries expire `ttl` seconds after they are stored; the oldest go first when full."""

    def __init__(self, ttl: float, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl
        self._max_entries = max_entries
        self._clock = clock
        self._entries: dict[str, tuple[float, V]] = {}

    def _live(self, key: str) -> tuple[float, V] | None:
        entry = self._entries.get(key)
        if entry is not None and entry[0] <= self._clock():
            del self._entries[key]
            return None
        return entry

    def __contains__(self, key: str) -> bool:
        return self._live(key) is not None

    def get(self, key: str) -> V | None:
        """The stored value, or None when absent or expired (use `in` to tell a stored None apart)."""
        entry = self._live(key)
        return None if entry is None else entry[1]

    async def get_or_load(self, key: str, load: Callable[[], Awaitable[V]]) -> V:
        """The stored value, or what `load` returns (stored, even when it is None)."""
        entry = self._live(key)
        if entry is not None:
            return entry[1]
        value = await load()
        self.set(key, value)
        return value

    def set(self, key: str, value: V) -> None:
        self._entries.pop(key, None)
        if len(self._entries) >= self._max_entries:
            del self._entries[next(iter(self._entries))]
        self._entries[key] = (self._clock() + self._ttl, value)

    def discard(self, key: str) -> None:
        self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
