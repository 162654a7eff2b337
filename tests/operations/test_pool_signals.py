"""The database pool's signals. They are the process's figures: measured in a process of its own,
since the test worker's shared stack moves them too whenever its parts use their pools."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from libs.common.db import create_pool, cursor
from libs.contract.parts import GATEWAY, ROOT
from tests.operations.test_signals import sample

Figures = tuple[float, float]


def figures() -> Figures:
    return sample("db_pool_connections_in_use"), sample("db_pool_waiting")


async def measured(dsn: str) -> dict[str, Figures]:
    """The figures before, while one connection is lent out and one request waits, and after."""
    async with create_pool(dsn, GATEWAY.schema, 0, 1) as pool:
        seen = {"before": figures()}
        release = asyncio.Event()

        async def hold() -> None:
            async with cursor(pool) as cur:
                await cur.execute("SELECT 1")
                await release.wait()

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0.2)
        waiter = asyncio.create_task(hold())
        await asyncio.sleep(0.2)
        seen["during"] = figures()
        release.set()
        await asyncio.gather(holder, waiter)
        seen["after"] = figures()
        return seen


def test_the_database_pool_reports_connections_in_use_and_waiters(database):
    run = f"asyncio.run(measured({database.dsn(GATEWAY)!r}))"
    script = f"import asyncio, json; from {__name__} import measured; print(json.dumps({run}))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    (in_use, waiting) = seen["before"]
    assert seen["during"] == [in_use + 1, waiting + 1]
    assert seen["after"] == [in_use, waiting]
