"""The gateway's identity cache refreshes ahead of expiry, one load at a time, answering the row
it holds meanwhile: an expiring entry never waits on (or fails with) the database."""

from __future__ import annotations

import asyncio
import time

from gateway.cache import TtlCache
from gateway.identity.directory import DIRECTORY_TTL_SECONDS
from gateway.state import DIRECTORY
from libs.common.db import OPERATION_TIMEOUT_SECONDS
from libs.common.state import DB_POOL
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_an_entry_due_for_refresh_answers_at_once_and_reloads_once():
    clock = Clock()
    cache: TtlCache[str] = TtlCache(60, 10, clock, refresh_after=45, max_stale=300)
    cache.set("org", "old")
    clock.now += 50
    release, loads = asyncio.Event(), []

    async def load() -> str:
        loads.append(1)
        await release.wait()
        return "new"

    answers = await asyncio.gather(*(cache.get_or_load("org", load) for _ in range(20)))
    assert answers == ["old"] * 20
    release.set()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert loads == [1]
    assert await cache.get_or_load("org", load) == "new"


async def test_a_failed_refresh_past_expiry_keeps_the_held_row():
    clock = Clock()
    cache: TtlCache[str] = TtlCache(60, 10, clock, refresh_after=45, max_stale=300)
    cache.set("org", "held")
    clock.now += 61

    async def load() -> str:
        raise OSError("no free connection")

    assert await cache.get_or_load("org", load) == "held"
    await asyncio.sleep(0)
    assert await cache.get_or_load("org", load) == "held"


async def test_concurrent_misses_load_once():
    cache: TtlCache[str] = TtlCache(60, 10)
    loads = []

    async def load() -> str:
        loads.append(1)
        await asyncio.sleep(0.01)
        return "row"

    assert await asyncio.gather(*(cache.get_or_load("org", load) for _ in range(20))) == ["row"] * 20
    assert loads == [1]


async def test_an_expired_organization_is_served_while_the_database_has_no_free_connection(
    gateway, identity: IdentityFactory
):
    org = await identity.organization()
    headers = {"x-api-key": await identity.api_key(org)}
    directory = gateway.app[DIRECTORY]
    pool = gateway.app[DB_POOL]
    # The organization's creation is a change the directory's poll reads for a few seconds
    # (CHANGES_OVERLAP), forgetting the organization each time; once it is cached while every
    # connection is held, no poll can run to forget it.
    for _ in range(50):
        assert (await gateway.get(RUNS, headers=headers)).status == 200
        held = [await pool.acquire() for _ in range(pool.maxsize)]
        if org.id in directory._organizations:
            break
        for conn in held:
            pool.release(conn)
        await asyncio.sleep(0.2)
    else:
        raise AssertionError("the organization was never cached while the connections were held")
    for cache in (directory._organizations, directory._products, directory._roles):
        cache._clock = lambda: time.monotonic() + DIRECTORY_TTL_SECONDS + 1
    try:
        for _ in range(5):
            # Well within the pool's wait (OPERATION_TIMEOUT_SECONDS), which a request waiting for a
            # connection would meet, and beyond what a machine running the whole suite takes.
            response = await asyncio.wait_for(gateway.get(RUNS, headers=headers), OPERATION_TIMEOUT_SECONDS / 3)
            assert response.status == 200
    finally:
        for conn in held:
            pool.release(conn)
