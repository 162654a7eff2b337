"""The event consumer against real Redis: acknowledge after applying, one read per document,
failures left pending and retried (by their consumer soon, by any consumer once stale),
malformed entries skipped, the group made again when Redis lost it."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY
from redis.exceptions import ConnectionError as RedisConnectionError

from libs.common import stream_consumer
from libs.common.encoding import dumps
from libs.common.redis_client import create_redis
from services.search import indexer as indexer_module
from services.search.indexer import EventConsumer
from tests.conftest import REDIS_URL


class RecordingIndexer:
    def __init__(self, failing: tuple[str, ...] = (), slow: tuple[str, ...] = ()) -> None:
        self.calls: list[tuple[str, str]] = []
        self.failing = set(failing)
        self.slow = set(slow)
        self.running = 0

    async def index(self, organization_id: str, document_id: str) -> None:
        self.calls.append((organization_id, document_id))
        self.running += 1
        if document_id in self.slow:
            await asyncio.sleep(0.3)
        self.running -= 1
        if document_id in self.failing:
            raise RuntimeError("content service unreachable")


@dataclass
class Stream:
    redis: aioredis.Redis
    name: str

    def consumer(self, indexer: RecordingIndexer, start: str = "0") -> EventConsumer:
        return EventConsumer(self.redis, self.name, indexer, start=start)  # type: ignore[arg-type]

    async def publish(self, document_id: str, occurred_at: datetime | None = None) -> None:
        event = {"type": "content.changed", "organizationId": "org-1", "documentId": document_id}
        if occurred_at is not None:
            event["occurredAt"] = occurred_at.isoformat()
        await self.redis.xadd(self.name, {"event": dumps(event)})

    async def pending(self) -> int:
        return int((await self.redis.xpending(self.name, indexer_module.GROUP))["pending"])


@pytest.fixture
async def stream() -> AsyncIterator[Stream]:
    client = create_redis(REDIS_URL)
    name = f"test-events-{uuid.uuid4().hex}"
    yield Stream(client, name)
    await client.delete(name)
    await client.aclose()


async def test_events_are_applied_once_per_document_and_acknowledged(stream):
    recording = RecordingIndexer()
    consumer = stream.consumer(recording)
    await consumer.ensure_group()
    for document_id in ("a", "b", "a", "a"):
        await stream.publish(document_id)
    assert await consumer.step() == 4
    assert recording.calls == [("org-1", "a"), ("org-1", "b")]
    assert await stream.pending() == 0
    assert await consumer.step() == 0  # nothing new: the read waits briefly and returns


async def test_a_failed_document_stays_pending_and_is_claimed_again(stream, monkeypatch):
    recording = RecordingIndexer(failing=("broken",))
    consumer = stream.consumer(recording)
    await stream.publish("fine")
    await stream.publish("broken")
    await consumer.step()
    assert await stream.pending() == 1
    recording.failing.clear()
    monkeypatch.setattr(stream_consumer, "CLAIM_IDLE_MS", 0)
    monkeypatch.setattr(stream_consumer, "CLAIM_EVERY_SECONDS", 0.0)
    assert await consumer.step() == 1
    assert recording.calls[-1] == ("org-1", "broken")
    assert await stream.pending() == 0


async def step_until_nothing_pending(stream: Stream, consumer: EventConsumer) -> None:
    """Steps of the consumer for at most half the idle time after which another consumer could
    claim its entries (the consumer reads them again after RETRY_FIRST_SECONDS)."""
    deadline = time.monotonic() + stream_consumer.CLAIM_IDLE_MS / 2000
    while await stream.pending() and time.monotonic() < deadline:
        await consumer.step()


async def test_a_failed_document_is_retried_by_its_consumer_within_seconds(stream):
    recording = RecordingIndexer(failing=("broken",))
    consumer = stream.consumer(recording)
    await stream.publish("broken")
    await consumer.step()
    assert await stream.pending() == 1
    recording.failing.clear()  # the content service answers again
    await step_until_nothing_pending(stream, consumer)
    assert recording.calls == [("org-1", "broken"), ("org-1", "broken")]
    assert await stream.pending() == 0


async def test_entries_delivered_without_the_reply_arriving_are_read_again(stream):
    recording = RecordingIndexer()
    consumer = stream.consumer(recording)
    await stream.publish("first")
    assert await consumer.step() == 1
    [member] = await stream.redis.xinfo_consumers(stream.name, indexer_module.GROUP)
    await stream.publish("lost")
    # Redis hands the entry to the consumer, whose read timed out before the answer came.
    await stream.redis.xreadgroup(indexer_module.GROUP, member["name"], {stream.name: ">"})
    await step_until_nothing_pending(stream, consumer)
    assert recording.calls == [("org-1", "first"), ("org-1", "lost")]
    assert await stream.pending() == 0


async def test_a_new_group_reads_what_the_stream_already_holds_and_skips_malformed_entries(stream):
    await stream.publish("before")
    await stream.redis.xadd(stream.name, {"event": b"not json"})
    recording = RecordingIndexer()
    consumer = stream.consumer(recording)
    assert await consumer.step() == 2
    assert recording.calls == [("org-1", "before")]
    assert await stream.pending() == 0


def lag_samples() -> tuple[float, float]:
    count = REGISTRY.get_sample_value("search_indexing_lag_seconds_count") or 0.0
    return count, REGISTRY.get_sample_value("search_indexing_lag_seconds_sum") or 0.0


async def test_the_indexing_lag_is_observed_from_the_first_event_of_a_document(stream):
    consumer = stream.consumer(RecordingIndexer(failing=("broken",)))
    await consumer.ensure_group()
    now = datetime.now(UTC)
    await stream.publish("a", now - timedelta(seconds=40))
    await stream.publish("a", now - timedelta(seconds=1))
    await stream.publish("broken", now - timedelta(seconds=500))
    await stream.publish("undated")
    count, total = lag_samples()
    assert await consumer.step() == 4
    new_count, new_total = lag_samples()
    assert new_count == count + 1  # "a" only: the failed one is not indexed, the undated one has no time
    assert 40 <= new_total - total < 60


def events_read_errors() -> float:
    return REGISTRY.get_sample_value("redis_errors_total", {"operation": "events_read"}) or 0.0


async def test_a_consumer_makes_its_group_again_when_redis_lost_the_stream(stream, caplog):
    recording = RecordingIndexer()
    # Even a group first made at the stream's end: the one made again must read the new stream
    # from its beginning, where the relay has already published.
    consumer = stream.consumer(recording, start="$")
    await consumer.ensure_group()
    await stream.publish("before")
    assert await consumer.step() == 1
    await stream.redis.delete(stream.name)  # Redis came back empty: stream and group are gone
    await stream.publish("after")
    errors = events_read_errors()
    with caplog.at_level(logging.WARNING, logger=stream_consumer.__name__):
        assert await consumer.step() == 1
    assert recording.calls == [("org-1", "before"), ("org-1", "after")]
    assert await stream.pending() == 0
    # The consumer's own records: other tasks of this process may log a slow Redis meanwhile.
    own = [record.levelno for record in caplog.records if record.name == stream_consumer.__name__]
    assert own == [logging.WARNING]
    assert consumer.group_lost.is_set()
    # Counted as a failed read (the process's count: other consumers' slow reads count there too).
    assert events_read_errors() >= errors + 1


async def test_the_lag_is_measured_on_the_stream_redis_holds_after_losing_it(stream):
    consumer = stream.consumer(RecordingIndexer())
    await stream.publish("before")
    assert await consumer.step() == 1
    await stream.redis.delete(stream.name)
    await stream.publish("after", datetime.now(UTC) - timedelta(seconds=30))
    unindexed, age = await consumer.lag()
    assert unindexed == 1
    assert 30 <= age < 60


async def test_a_failed_acknowledgement_leaves_no_indexing_running_after_the_step(stream, monkeypatch):
    recording = RecordingIndexer(slow=("slow",))
    consumer = stream.consumer(recording)
    await stream.publish("fast")
    await stream.publish("slow")

    async def unreachable(*entry_ids: bytes) -> None:
        raise RedisConnectionError("Redis went away")

    monkeypatch.setattr(consumer, "ack", unreachable)
    with pytest.raises(RedisConnectionError):  # the acknowledgement of "fast" failed: the round fails
        await consumer.step()
    assert recording.running == 0
    assert recording.calls == [("org-1", "fast"), ("org-1", "slow")]
    assert await stream.pending() == 2  # read again by the retry of the consumer's own entries
