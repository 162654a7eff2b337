"""The outbox relay: one publisher at a time, every event exactly once, in order, across crashes.

These tests run relays of their own against a stream of their own, on a database of their own:
the worker's shared `stack` runs a content service, whose relay would take the same outbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable

import psycopg2
import pytest
import redis.asyncio as aioredis

from libs.common.db import transaction
from libs.common.encoding import loads
from libs.common.redis_client import create_redis
from libs.common.relay import OutboxRelay
from libs.contract.parts import CONTENT
from services.content.queries import outbox
from tests import conftest
from tests.factories import ContentFactory, IdentityFactory, Org


@pytest.fixture(scope="module")
def database(module_database: conftest.TestDatabase) -> conftest.TestDatabase:
    return module_database


@pytest.fixture
async def redis() -> AsyncIterator[aioredis.Redis]:
    client = create_redis(conftest.REDIS_URL)
    yield client
    await client.aclose()


@pytest.fixture
async def stream(redis: aioredis.Redis) -> AsyncIterator[str]:
    name = f"test-{uuid.uuid4().hex[:8]}:events:content"
    yield name
    await redis.delete(name)


@pytest.fixture
async def relay(
    database: conftest.TestDatabase, redis: aioredis.Redis, stream: str
) -> AsyncIterator[Callable[[], OutboxRelay]]:
    """Makes relays on the test's stream; each is closed (its lock freed) when the test ends."""
    made: list[OutboxRelay] = []

    def make() -> OutboxRelay:
        made.append(OutboxRelay(database.dsn(CONTENT), CONTENT.schema, outbox.CONTENT_OUTBOX, redis, stream))
        return made[-1]

    yield make
    for one in made:
        await one.close()


async def consumed(redis: aioredis.Redis, stream: str, org: Org) -> list[dict]:
    """Every event of `org` a new consumer group reads from the start of the stream, acknowledged."""
    group = f"group-{uuid.uuid4().hex[:8]}"
    await redis.xgroup_create(stream, group, id="0", mkstream=True)
    events = []
    while answer := await redis.xreadgroup(group, "reader", {stream: ">"}, count=200):
        for entry_id, fields in answer[0][1]:
            events.append(loads(fields[b"event"]))
            await redis.xack(stream, group, entry_id)
    return [event for event in events if event["organizationId"] == org.id]


async def test_a_crash_between_publishing_and_marking_loses_and_duplicates_nothing(
    relay, identity: IdentityFactory, content: ContentFactory, redis, stream
):
    org = await identity.organization()
    product = await identity.product(org)
    before = [await content.document(org, product) for _ in range(5)]
    crashing = relay()
    assert await crashing.acquire()
    await crashing.place()
    done, error = await crashing.publish(await crashing.placed())
    assert error == ""
    await crashing.close()  # gone before marking anything published
    after = [await content.document(org, product) for _ in range(3)]
    restarted = relay()
    await restarted.step()
    events = await consumed(redis, stream, org)
    assert [event["documentId"] for event in events] == [document["id"] for document in before + after]
    assert {event["type"] for event in events} == {outbox.CREATED}
    assert len({event["id"] for event in events}) == len(events)
    await restarted.step()
    assert await consumed(redis, stream, org) == events


async def test_an_event_committed_late_is_still_published_after_earlier_ones(
    relay, identity: IdentityFactory, content: ContentFactory, redis, stream
):
    org = await identity.organization()
    product = await identity.product(org)
    slow_document = await content.document(org, product)
    publisher = relay()
    await publisher.step()
    async with transaction(content.pool) as slow:
        # This transaction takes its outbox sequence number first but commits last.
        await outbox.record_event(slow, outbox.CHANGED, slow_document)
        fast_document = await content.document(org, product)
        await publisher.step()
    await publisher.step()
    events = await consumed(redis, stream, org)
    assert [(event["type"], event["documentId"]) for event in events] == [
        (outbox.CREATED, slow_document["id"]),
        (outbox.CREATED, fast_document["id"]),
        (outbox.CHANGED, slow_document["id"]),
    ]


async def test_only_one_relay_publishes_until_it_goes_away(relay, database):
    first, second, third = relay(), relay(), relay()
    assert await first.acquire()
    assert not await second.acquire()
    assert not await third.acquire()
    # The standbys hung up: one session for the outbox, however many relays wait.
    with contextlib.closing(psycopg2.connect(database.dsn(CONTENT))) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
            (f"relay {outbox.CONTENT_OUTBOX.lock_name}",),
        )
        assert cur.fetchone() == (1,)
    await first.close()
    assert await second.acquire()


async def test_relays_running_side_by_side_with_writers_publish_each_event_once_in_order(
    relay, identity: IdentityFactory, content: ContentFactory, redis, stream
):
    org = await identity.organization()
    product = await identity.product(org)
    relays = [relay() for _ in range(3)]
    stop = asyncio.Event()

    async def keep_relaying(one: OutboxRelay) -> None:
        while not stop.is_set():
            await one.step()
            await asyncio.sleep(0.005)

    async def write(count: int) -> list[str]:
        return [(await content.document(org, product))["id"] for _ in range(count)]

    running = [asyncio.create_task(keep_relaying(one)) for one in relays]
    written = await asyncio.gather(*(write(10) for _ in range(4)))
    stop.set()
    await asyncio.gather(*running)
    for one in relays:
        await one.step()
    events = await consumed(redis, stream, org)
    assert sorted(event["documentId"] for event in events) == sorted(sum(written, []))
    assert len({event["id"] for event in events}) == len(events) == 40
    for ids in written:  # each writer's documents, created one after another, arrive in that order
        assert [event["documentId"] for event in events if event["documentId"] in ids] == ids


async def test_a_stream_ahead_of_the_outbox_does_not_swallow_new_events(
    relay, identity: IdentityFactory, content: ContentFactory, redis, stream
):
    """Redis kept the stream of an earlier database (recreated since): its entries sit at positions
    this outbox has not handed out yet, and new events must still go out, after them."""
    org = await identity.organization()
    product = await identity.product(org)
    foreign = "999999999999-0"
    await redis.xadd(stream, {"event": b'{"organizationId": "elsewhere"}'}, id=foreign)
    documents = [await content.document(org, product) for _ in range(3)]
    await relay().step()
    events = await consumed(redis, stream, org)
    assert [event["documentId"] for event in events] == [document["id"] for document in documents]
    ids = [entry_id.decode() for entry_id, _ in await redis.xrange(stream)]
    assert ids[0] == foreign and len(ids) == 4
