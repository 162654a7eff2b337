"""Indexing gives way to queries: its threads run only on CPU time nothing else wants."""

from __future__ import annotations

import os
import threading

from services.search.indexer import Indexer


def policy() -> int:
    return os.sched_getscheduler(threading.get_native_id())


def test_indexing_threads_run_at_the_idle_policy_and_the_caller_keeps_its_own():
    indexer = Indexer(None, None, None, threads=2)  # type: ignore[arg-type]
    try:
        seen = {indexer._executor.submit(policy).result() for _ in range(4)}
    finally:
        indexer.close()
    assert seen == {os.SCHED_IDLE}
    assert policy() == os.SCHED_OTHER
