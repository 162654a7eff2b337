"""A PostgreSQL stopped under load, on the event loop the services run (uvloop): broken
connections are closed and dropped quietly, and the outage is two log lines, its start and its
end with a count, not a line per failed connection."""

from __future__ import annotations

import asyncio
import gc
import logging
import shutil
import sys
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvloop

from libs.common.db import create_pool, cursor, is_database_unavailable
from libs.contract.parts import ROOT
from libs.local.ports import free_port
from libs.local.stores import DATA, private_postgres, start_postgres, stop_postgres

OUTAGE_SECONDS = 3.0
CONCURRENT = 8


@pytest.fixture(scope="module")
def postgres() -> Iterator[tuple[str, Path, int]]:
    directory = DATA / f"outage-{uuid.uuid4().hex[:8]}"
    port = free_port()
    try:
        with private_postgres(directory, port) as url:
            yield url.rsplit("/", 1)[0] + "/postgres", directory, port
    finally:
        shutil.rmtree(directory, ignore_errors=True)


async def in_a_child(function: Callable[..., None], directory: Path, *numbers: int) -> None:
    """`function(directory, *numbers)` (of libs.local.stores) in a process the event loop spawns.
    Run by a thread, its `pg_ctl` was forked and made descriptors beside the loop while the loop's
    connections were breaking, and the whole test process once aborted inside the loop (uvloop)."""
    call = f"{function.__name__}(Path(sys.argv[1]), *map(int, sys.argv[2:]))"
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        f"import sys; from pathlib import Path; from libs.local.stores import {function.__name__}; {call}",
        str(directory),
        *map(str, numbers),
        cwd=ROOT,
    )
    assert await child.wait() == 0


async def outage_under_load(dsn: str, directory: Path, port: int) -> tuple[int, int]:
    """Queries from CONCURRENT tasks before, during and after the outage. Returns how many failed
    and how many succeeded after the restart."""
    failed = succeeded_after = 0
    restarted = False
    async with create_pool(dsn, "public", 1, 4) as pool:

        async def one() -> None:
            nonlocal failed, succeeded_after
            try:
                async with cursor(pool) as cur:
                    await cur.execute("SELECT pg_sleep(0.02)")
            except Exception as exc:
                assert is_database_unavailable(exc) or type(exc).__name__ == "ServiceUnavailable", repr(exc)
                failed += 1
            else:
                succeeded_after += restarted

        async def load(until: asyncio.Event) -> None:
            while not until.is_set():
                await asyncio.gather(*(one() for _ in range(CONCURRENT)))
                await asyncio.sleep(0.01)

        done = asyncio.Event()
        running = asyncio.create_task(load(done))
        await asyncio.sleep(0.5)
        await in_a_child(stop_postgres, directory)
        await asyncio.sleep(OUTAGE_SECONDS)
        await in_a_child(start_postgres, directory, port)
        restarted = True
        deadline = time.monotonic() + 30
        while succeeded_after < 50 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        done.set()
        await running
    gc.collect()
    await asyncio.sleep(0.1)  # callbacks of whatever the collection finalised
    return failed, succeeded_after


def test_an_outage_is_logged_when_it_starts_and_when_it_ends_and_nothing_in_between(postgres, caplog):
    caplog.set_level(logging.INFO)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        failed, succeeded_after = uvloop.run(outage_under_load(*postgres))
    assert failed > 0
    assert succeeded_after >= 50
    texts = [record.getMessage() for record in caplog.records]
    assert [text for text in texts if "Unclosed connection" in text or "never retrieved" in text] == []
    assert [str(w.message) for w in caught if "Unclosed" in str(w.message)] == []
    outage = [record for record in caplog.records if record.name == "libs.common.db"]
    assert [record.levelname for record in outage] == ["WARNING", "WARNING"], [r.getMessage() for r in outage]
    assert outage[0].getMessage().startswith("database unavailable")
    assert outage[1].getMessage().startswith("database available again")
    assert f"{failed} operations failed" in outage[1].getMessage()
    assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []
