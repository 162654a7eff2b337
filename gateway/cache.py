"""A bounded in-process cache with a time-to-live per entry.

The gateway answers most requests from memory (design brief: one Redis or database round trip
per request costs a third of the throughput), so everything it looks up per request lives here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from libs.common.tasks import watch

V = TypeVar("V")


class TtlCache(Generic[V]):
    """Entries expire `ttl` seconds after they are stored; the oldest go first when full.

    With `refresh_after`, `get_or_load` refreshes an entry older than that in the background,
    one load per key at a time, and answers the value it holds meanwhile, also past its expiry
    (up to `max_stale` seconds beyond), so an expiring entry never puts the database on the
    request path, and a database short of connections at that moment costs no request.
    """

    def __init__(
        self,
        ttl: float,
        max_entries: int,
        clock: Callable[[], float] = time.monotonic,
        refresh_after: float | None = None,
        max_stale: float = 0.0,
    ) -> None:
        self._ttl = ttl
        self._max_entries = max_entries
        self._clock = clock
        self._refresh_after = ttl if refresh_after is None else refresh_after
        self._max_stale = max_stale
        self._entries: dict[str, tuple[float, V]] = {}  # key: (stored at, value)
        self._loads: dict[str, asyncio.Task[V]] = {}

    def _live(self, key: str, grace: float = 0.0) -> tuple[float, V] | None:
        entry = self._entries.get(key)
        if entry is not None and entry[0] + self._ttl + grace <= self._clock():
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
        entry = self._live(key, self._max_stale)
        if entry is None:
            return await asyncio.shield(self._load(key, load))
        stored_at, value = entry
        if self._clock() - stored_at >= self._refresh_after:
            self._load(key, load)  # in the background: its failure is logged by `watch`
        return value

    def _load(self, key: str, load: Callable[[], Awaitable[V]]) -> asyncio.Task[V]:
        """The one load of `key` in flight, started if none is; it stores what it loads."""
        task = self._loads.get(key)
        if task is None:

            async def run() -> V:
                current = asyncio.current_task()
                try:
                    value = await load()
                    if self._loads.get(key) is current:  # not discarded meanwhile
                        self.set(key, value)
                    return value
                finally:
                    if self._loads.get(key) is current:
                        del self._loads[key]

            task = self._loads[key] = watch(asyncio.ensure_future(run()), "loading a cached entry")
        return task

    def set(self, key: str, value: V) -> None:
        self._entries.pop(key, None)
        if len(self._entries) >= self._max_entries:
            del self._entries[next(iter(self._entries))]
        self._entries[key] = (self._clock(), value)

    def discard(self, key: str) -> None:
        """Forget `key`; a load in flight, begun before, does not store its value."""
        self._entries.pop(key, None)
        self._loads.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
