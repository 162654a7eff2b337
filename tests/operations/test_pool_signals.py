"""The database pool's signals, in a module of their own: no stack of every part runs beside
this test (tests of one module share one), so only its own pool moves the process's figures."""

from __future__ import annotations

import asyncio

from libs.common.db import create_pool, cursor
from libs.contract.parts import GATEWAY
from tests.operations.test_signals import sample


async def test_the_database_pool_reports_connections_in_use_and_waiters(database):
    async with create_pool(database.dsn(GATEWAY), GATEWAY.schema, 0, 1) as pool:
        in_use, waiting = sample("db_pool_connections_in_use"), sample("db_pool_waiting")
        release = asyncio.Event()

        async def hold() -> None:
            async with cursor(pool) as cur:
                await cur.execute("SELECT 1")
                await release.wait()

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0.2)
        waiter = asyncio.create_task(hold())
        await asyncio.sleep(0.2)
        assert (sample("db_pool_connections_in_use"), sample("db_pool_waiting")) == (in_use + 1, waiting + 1)
        release.set()
        await asyncio.gather(holder, waiter)
        assert (sample("db_pool_connections_in_use"), sample("db_pool_waiting")) == (in_use, waiting)
