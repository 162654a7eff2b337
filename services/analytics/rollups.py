"""Daily rollups of analysed answers (migrations/004_rollups.sql): additive sums and counts per
organization, product, UTC day, engine, prompt, topic, competitor-set version, and brand or domain.

They move in the transaction that stores an analysis: the answer's previous analysis taken away,
the new one added, by the same SQL definitions a rebuild from the raw rows reads
(`rollup_*_of(analysis ids, signs)`). Ratios are never stored; they are computed when read
(services/analytics/metrics.py).
"""

from __future__ import annotations

from typing import Any

TABLES = ("rollup_answers", "rollup_brands", "rollup_domains")


async def move(cur: Any, previous: str | None, current: str) -> None:
    """Replace the analysis `previous` of an answer (None: its first) by `current` in the rollups."""
    ids = [current] if previous is None else [previous, current]
    signs = [1] if previous is None else [-1, 1]
    await cur.execute("SELECT rollup_apply(%s::uuid[], %s::integer[])", (ids, signs))
