"""Daily rollups of analysed answers (migrations/004_rollups.sql): additive sums and counts per
organization, product, UTC day, engine, prompt, topic, competitor-set version, and brand or domain.

They move in the transaction that stores an analysis: the answer's previous analysis taken away,
the new one added, by the same SQL definitions a rebuild from the raw rows reads
(`rollup_*_of(analysis ids, signs)`). Ratios are never stored; they are computed when read
(services/analytics/metrics.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


async def move(cur: Any, moves: Sequence[tuple[str | None, str]]) -> None:
    """Replace, for each answer, its analysis `previous` (None: its first) by `current` in the
    rollups, in one statement per table: concurrent moves lock the rows they share in the same
    order (the functions' ORDER BY), so they wait for one another but never deadlock."""
    ids: list[str] = []
    signs: list[int] = []
    for previous, current in moves:
        if previous is not None:
            ids.append(previous)
            signs.append(-1)
        ids.append(current)
        signs.append(1)
    if ids:
        await cur.execute("SELECT rollup_apply(%s::uuid[], %s::integer[])", (ids, signs))
