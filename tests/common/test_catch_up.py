"""The catch-up of a consuming part (libs/common/catch_up.py): its mark follows what the group
acknowledged while the stream is whole, and the changes the stream lacks are read from their
owner and applied. Real Redis and PostgreSQL (the search schema's `event_progress`); the owner
is a function standing in for the changes endpoint, which tests/content/test_changes.py covers."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
import redis.asyncio as aioredis

from libs.common.catch_up import CatchUp, NotApplied
from libs.common.clients import Changes
from libs.common.db import create_pool
from libs.common.encoding import dumps
from libs.common.redis_client import create_redis
from libs.common.stream_consumer import Entry, StreamConsumer
from libs.contract.parts import SEARCH
from tests import conftest
from tests.conftest import REDIS_URL


class Consumer(StreamConsumer):
    """Acknowledges every entry except those at `failing` positions."""

    def __init__(self, redis: aioredis.Redis, stream: str, failing: Iterable[int] = ()) -> None:
        super().__init__(redis, stream, "catch-up-test")
        self.failing = {f"{position}-0".encode() for position in failing}

    async def handle(self, entries: Iterable[Entry]) -> None:
        done = [entry_id for entry_id, _ in entries if entry_id not in self.failing]
        if done:
            await self.ack(*done)


class Owner:
    """The owner's changes 1..`last`, in one page."""

    def __init__(self, last: int, complete: bool = True) -> None:
        self.last = last
        self.complete = complete
        self.asked: list[int] = []

    async def read(self, after: int) -> Changes:
        self.asked.append(after)
        events = [(position, {"position": position}) for position in range(after + 1, self.last + 1)]
        return Changes(events, self.complete)


class Applier:
    def __init__(self, failing: bool = False) -> None:
        self.applied: list[int] = []
        self.failing = failing

    async def apply(self, events: list[dict[str, Any]]) -> None:
        if self.failing:
            raise NotApplied("refused")
        self.applied += [event["position"] for event in events]


@pytest.fixture
async def redis() -> AsyncIterator[aioredis.Redis]:
    client = create_redis(REDIS_URL)
    yield client
    await client.aclose()


@pytest.fixture
async def stream(redis: aioredis.Redis) -> AsyncIterator[str]:
    name = f"test-{uuid.uuid4().hex[:8]}:events:catch-up"
    yield name
    await redis.delete(name)


@pytest.fixture
async def pool(database: conftest.TestDatabase) -> AsyncIterator[Any]:
    async with create_pool(database.dsn(SEARCH), SEARCH.schema, 1, 2) as made:
        yield made


async def publish(redis: aioredis.Redis, stream: str, *positions: int) -> None:
    for position in positions:
        await redis.xadd(stream, {"event": dumps({"position": position})}, id=f"{position}-0")


def catch_up(consumer: Consumer, pool: Any, owner: Owner, applier: Applier) -> CatchUp:
    return CatchUp(consumer, pool, f"test-{uuid.uuid4().hex[:8]}", owner.read, applier.apply)


async def test_while_the_stream_is_whole_the_mark_follows_what_the_group_acknowledged(redis, stream, pool):
    consumer = Consumer(redis, stream, failing=[4])
    await publish(redis, stream, 1, 2, 3, 4, 5)
    assert await consumer.step() == 5  # 4 stays pending
    owner, applier = Owner(5), Applier()
    healing = catch_up(consumer, pool, owner, applier)
    assert await healing.check() == 0
    assert await healing.mark() == 3  # not past the pending entry
    await consumer.ack(b"4-0")  # its retry succeeded
    assert await healing.check() == 0
    assert await healing.mark() == 5
    assert (owner.asked, applier.applied) == ([], [])


async def test_changes_the_stream_no_longer_holds_are_read_from_the_owner_and_applied(redis, stream, pool):
    consumer = Consumer(redis, stream)
    await publish(redis, stream, 1, 2)
    await consumer.step()
    owner, applier = Owner(7), Applier()
    healing = catch_up(consumer, pool, owner, applier)
    await healing.check()
    assert await healing.mark() == 2
    await redis.delete(stream)  # Redis came back empty ...
    await publish(redis, stream, 6, 7)  # ... and the relay published on; 3-5 were lost
    assert await healing.check() == 5
    assert owner.asked == [2]
    assert applier.applied == [3, 4, 5, 6, 7]
    assert await healing.mark() == 7
    assert await healing.check() == 0  # the stream holds the change after the mark again: nothing to read


async def test_a_catch_up_from_the_group_starts_where_the_group_stands_not_at_the_owners_first_change(
    redis, stream, pool
):
    await publish(redis, stream, 1, 2, 3)
    await redis.xgroup_create(stream, "catch-up-test", id="$")  # a group that takes new events only
    consumer = Consumer(redis, stream)
    owner, applier = Owner(3), Applier()
    healing = CatchUp(consumer, pool, f"test-{uuid.uuid4().hex[:8]}", owner.read, applier.apply, from_group=True)
    assert await healing.check() == 0
    assert await healing.mark() == 3
    assert (owner.asked, applier.applied) == ([], [])
    await redis.delete(stream)  # Redis came back empty: what came after the mark is read from the owner
    owner.last = 5
    assert await healing.check() == 2
    assert applier.applied == [4, 5]


async def test_an_empty_stream_asks_the_owner_and_a_failed_apply_keeps_the_mark(redis, stream, pool):
    consumer = Consumer(redis, stream)
    owner = Owner(3)
    failing = catch_up(consumer, pool, owner, Applier(failing=True))
    with pytest.raises(NotApplied):
        await failing.check()
    assert await failing.mark() is None  # nothing applied yet
    await failing.step()  # the periodic round swallows it (the applier logged why) and tries again later
    assert owner.asked == [0, 0]


async def test_changes_the_owner_no_longer_keeps_are_an_error_for_the_operator(redis, stream, pool, caplog):
    consumer = Consumer(redis, stream)
    owner, applier = Owner(4, complete=False), Applier()
    healing = catch_up(consumer, pool, owner, applier)
    with caplog.at_level(logging.WARNING, logger="libs.common.catch_up"):
        assert await healing.check() == 4
    assert [record.levelname for record in caplog.records] == ["ERROR", "WARNING"]
    assert "no longer kept" in caplog.records[0].getMessage()
    assert applier.applied == [1, 2, 3, 4]
