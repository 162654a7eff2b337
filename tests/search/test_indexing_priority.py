"""Indexing gives way to queries: its threads run at a lower scheduling priority."""

from __future__ import annotations

import os
import threading

from services.search.indexer import INDEXING_NICENESS, Indexer


def niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_indexing_threads_run_at_a_lower_priority_than_the_process():
    indexer = Indexer(None, None, "http://content", None, threads=2)  # type: ignore[arg-type]
    try:
        seen = {indexer._executor.submit(niceness).result() for _ in range(4)}
    finally:
        indexer.close()
    assert seen == {min(19, niceness() + INDEXING_NICENESS)}
    assert niceness() == os.getpriority(os.PRIO_PROCESS, 0)  # the caller's own thread is untouched
