"""The last llms.txt and sitemap.xml this process wrote for recently read Apps.

An answer is kept with the version of everything it was made from: the App's rows, its routes'
count and last change, its domains and products, the latest product rename, and the latest
change of any document of the organization (two index probes, no document read). A read that
finds the same version serves the kept bytes instead of reading 10,000 documents again; a
version with any change in it makes the answer anew. Two writes committed out of the order of
their timestamps could leave a version unchanged, so an answer is also never kept longer than
MAX_AGE_SECONDS: within the 2 s allowed for a change to show.

The same keeping, by version and age, serves other answers made from many rows
(`KeptByVersion`): the count of an App's routed documents among its route candidates
(services/apps/candidate_listing.py).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

MAX_AGE_SECONDS = 1.0
# About 1.2 MB an App of 10,000 routes, per kind.
MAX_ENTRIES = 32

T = TypeVar("T")


@dataclass(frozen=True)
class Written:
    body: bytes
    etag: str
    changed_at: datetime


class KeptByVersion(Generic[T]):
    """The last `max_entries` values put, each with the version it was made from."""

    def __init__(self, max_entries: int, max_age: float = MAX_AGE_SECONDS) -> None:
        self._entries: OrderedDict[Hashable, tuple[Hashable, float, T]] = OrderedDict()
        self._max_entries = max_entries
        self._max_age = max_age

    def get(self, key: Hashable, version: Hashable) -> T | None:
        """The value kept for `key` when it was made from `version`, not longer ago than the limit."""
        kept = self._entries.get(key)
        if kept is None or kept[0] != version or time.monotonic() - kept[1] > self._max_age:
            return None
        self._entries.move_to_end(key)
        return kept[2]

    def put(self, key: Hashable, version: Hashable, value: T) -> None:
        self._entries[key] = (version, time.monotonic(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)


class TextCache(KeptByVersion[Written]):
    def __init__(self, max_entries: int = MAX_ENTRIES, max_age: float = MAX_AGE_SECONDS) -> None:
        super().__init__(max_entries, max_age)
