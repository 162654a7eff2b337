"""Pools give back what a burst took: connections idle past the timeout are closed, down to the
pool's minimum; and the local stack's pools together fit in what the server allows."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import Any

from libs.common.db import create_pool, cursor, trimmed
from libs.contract.parts import PARTS, SEARCH, database_connections, pool_max_within
from libs.local.stores import LOCAL_HEADROOM_CONNECTIONS, connection_limit, local_pool_max
from tests.conftest import ADMIN_URL

BURST = 6


async def burst(pool: Any) -> None:
    """BURST connections in use at once."""
    async with AsyncExitStack() as held:
        for _ in range(BURST):
            cur = await held.enter_async_context(cursor(pool))
            await cur.execute("SELECT 1")


async def test_a_pool_shrinks_back_to_its_minimum_once_the_burst_is_over(database):
    async with create_pool(database.dsn(SEARCH), SEARCH.schema, 1, BURST) as pool:
        async with trimmed(pool, idle_seconds=0.3, every=0.1):
            await burst(pool)
            assert pool.size == BURST
            await asyncio.sleep(1.0)
            assert (pool.size, pool.freesize) == (1, 1)
            await burst(pool)  # the pool grows again when needed
            assert pool.size == BURST


async def test_a_busy_pool_keeps_the_connections_in_use(database):
    async with create_pool(database.dsn(SEARCH), SEARCH.schema, 0, 3) as pool:
        async with trimmed(pool, idle_seconds=0.0, every=0.05), cursor(pool) as cur:
            await cur.execute("SELECT pg_sleep(0.3)")
            assert pool.size == 1  # lent out: never closed under its user


def test_the_pools_of_every_part_fit_the_servers_connection_limit():
    limit = connection_limit(ADMIN_URL)
    size = local_pool_max(ADMIN_URL)
    assert 1 <= size
    assert database_connections(size) <= limit - LOCAL_HEADROOM_CONNECTIONS
    # The computation itself: the largest size that fits, at a limit like a default server's.
    fitting = pool_max_within(97 - LOCAL_HEADROOM_CONNECTIONS)
    assert database_connections(fitting) <= 87 < database_connections(fitting + 1)
    assert database_connections(1) == sum(part.workers * (1 + part.outboxes) for part in PARTS)
