"""Reading a part's event stream as one member of a consumer group (docs/architecture.md, "Events").

The replicas of a consuming part form one group, so each entry is handled by one of them. An
entry is acknowledged only once handled. One left unacknowledged by a live consumer (its
handler failed, or the reply that delivered it was lost to a timeout) is read again by that
consumer within seconds; one left by a replica that died is claimed by another after
CLAIM_IDLE_MS. Handlers must be idempotent: an entry read again may have been applied already.

A Redis that restarts without its data (or fails over to an empty replica) has lost the stream
and its groups; a consumer whose read is refused with NOGROUP makes its group again and reads
on. What the lost stream held and the group had not acknowledged is gone from Redis with it; the
consuming part reads those changes from their owner instead (libs/common/catch_up.py), told by
`group_lost` and `coverage()`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from libs.common.encoding import loads
from libs.common.metrics import REDIS_ERRORS
from libs.common.tasks import interruptible

log = logging.getLogger(__name__)

Entry = tuple[bytes, dict[bytes, bytes]]
T = TypeVar("T")

READ_COUNT = 100
# Below the Redis client's socket timeout, so a quiet stream is not taken for a dead connection.
READ_BLOCK_MS = 500
CLAIM_IDLE_MS = 30_000
CLAIM_EVERY_SECONDS = 10.0
# A consumer reads its own unacknowledged entries again this long after they were last read,
# the delay doubling while some remain (an outage, a document that keeps failing) up to
# RETRY_MAX_SECONDS: a short outage costs seconds rather than the claim's idle time, and a long
# one no tight loop. Each read resets the entries' idle time, so the maximum stays below
# CLAIM_IDLE_MS: another replica never takes the entries of a live consumer.
RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 15.0
# Where a group made again after Redis lost it starts: the stream is new, and all it holds (what
# the relay published since) is unread by the group. Were only the group destroyed, the stream
# would be read again from its start, which idempotent handlers take as a replay.
LOST_GROUP_START = "0"


class StreamConsumer(ABC):
    """A member of `group` on `stream`; subclasses say how a batch of entries is handled."""

    def __init__(self, redis: aioredis.Redis, stream: str, group: str, start: str = "0") -> None:
        self._redis = redis
        self._stream = stream
        self._group = group
        # Where a group made by this consumer starts: "0", everything the stream holds; "$", new events.
        self._start = start
        self._name = f"{socket.gethostname()}-{os.getpid()}"
        self._ready = False
        self._claimed_at = 0.0
        self._retry_at = 0.0
        self._retry_delay = RETRY_FIRST_SECONDS
        # Set when the group had to be made again (Redis lost it): entries may be lost with it.
        self.group_lost = asyncio.Event()

    @abstractmethod
    async def handle(self, entries: Iterable[Entry]) -> None:
        """Apply the entries and acknowledge those applied (`ack`); the rest stay pending."""

    async def ack(self, *entry_ids: bytes) -> None:
        await self._redis.xack(self._stream, self._group, *entry_ids)

    async def ensure_group(self) -> None:
        if not self._ready:
            await self._create_group(self._start)

    async def _create_group(self, start: str) -> None:
        try:
            await self._redis.xgroup_create(self._stream, self._group, id=start, mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):  # another replica made it first
                raise
        self._ready = True

    async def _in_group(self, work: Callable[[], Awaitable[T]]) -> T:
        """`work` against the group, done again once the group is made anew if Redis lost it."""
        await self.ensure_group()
        try:
            return await work()
        except ResponseError as exc:
            if not str(exc).startswith("NOGROUP"):
                raise
        REDIS_ERRORS.labels("events_read").inc()
        log.warning(
            "the consumer group %s of %s is gone (Redis lost its data); making it again from %s",
            self._group,
            self._stream,
            LOST_GROUP_START,
        )
        await self._create_group(LOST_GROUP_START)
        self.group_lost.set()
        return await work()

    async def _claim_stale(self) -> list[Entry]:
        """Entries another consumer took and never acknowledged (it died, or its handler failed)."""
        loop_time = asyncio.get_running_loop().time()
        if loop_time - self._claimed_at < CLAIM_EVERY_SECONDS:
            return []
        self._claimed_at = loop_time
        _, entries, *_ = await self._redis.xautoclaim(
            self._stream, self._group, self._name, CLAIM_IDLE_MS, count=READ_COUNT
        )
        return [entry for entry in entries if entry[1]]

    async def _read_own_pending(self) -> list[Entry]:
        """Entries this consumer was given and has not acknowledged, when their retry is due."""
        loop_time = asyncio.get_running_loop().time()
        if loop_time < self._retry_at:
            return []
        answer = await self._read("0")  # "0": this consumer's own pending entries, not new ones
        trimmed = [entry_id for entry_id, fields in answer if not fields]
        if trimmed:
            await self.ack(*trimmed)  # no longer in the stream: nothing left to apply
        entries = [entry for entry in answer if entry[1]]
        self._retry_delay = min(2 * self._retry_delay, RETRY_MAX_SECONDS) if entries else RETRY_FIRST_SECONDS
        self._retry_at = loop_time + self._retry_delay
        return entries

    async def _read(self, start: str, block: int | None = None) -> list[Entry]:
        # The client's annotation does not describe the reply: [[stream, [(id, fields), ...]], ...].
        answer: Any = await self._redis.xreadgroup(
            self._group, self._name, {self._stream: start}, count=READ_COUNT, block=block
        )
        return [entry for _, stream_entries in answer for entry in stream_entries] if answer else []

    async def step(self) -> int:
        """One round: handle what is waiting (or wait briefly for it). Returns how many entries.
        A Redis that does not answer fails the round (counted): the periodic task that runs it
        waits longer and longer before the next (libs/common/tasks.py)."""
        try:
            return await self._step()
        except RedisError:
            REDIS_ERRORS.labels("events_read").inc()
            raise

    async def _step(self) -> int:
        entries = await self._in_group(self._next_entries)
        await self.handle(entries)
        return len(entries)

    async def _next_entries(self) -> list[Entry]:
        if entries := await self._claim_stale() or await self._read_own_pending():
            return entries
        with interruptible():  # waiting for new entries: a stop need not wait for the block to end
            return await self._read(">", READ_BLOCK_MS)

    async def coverage(self) -> tuple[int | None, int | None]:
        """The position of the stream's first entry (None when the stream is empty or gone), and
        the position through which the group has acknowledged every entry (None without a group).
        A position is an entry id's first part: relays publish event `n` as `n-0`."""
        try:
            info = await self._redis.xinfo_stream(self._stream)
        except ResponseError:  # no such key
            return None, None
        first = info.get("first-entry")
        groups = await self._redis.xinfo_groups(self._stream)
        group = next((g for g in groups if _text(g["name"]) == self._group), None)
        if group is None:
            return _position(first[0]) if first else None, None
        pending = await self._redis.xpending(self._stream, self._group)
        if int(pending["pending"]):
            through = _position(pending["min"]) - 1
        else:
            through = _position(group["last-delivered-id"])
        return _position(first[0]) if first else None, through

    async def lag(self) -> tuple[int, float]:
        """Entries the group has not acknowledged or not yet read, and the age in seconds of the
        oldest one (from its event's `occurredAt`; 0 when none)."""
        return await self._in_group(self._lag)

    async def _lag(self) -> tuple[int, float]:
        pending = await self._redis.xpending(self._stream, self._group)  # first: NOGROUP when the group is gone
        groups = await self._redis.xinfo_groups(self._stream)
        group = next(g for g in groups if _text(g["name"]) == self._group)
        unacknowledged, unread = int(pending["pending"]), int(group.get("lag") or 0)
        if unacknowledged:
            first = _text(pending["min"])
            entries = await self._redis.xrange(self._stream, min=first, max=first, count=1)
        elif unread:
            entries = await self._redis.xrange(self._stream, min="(" + _text(group["last-delivered-id"]), count=1)
        else:
            return 0, 0.0
        age = 0.0
        if entries:
            fields: Any = entries[0][1]
            occurred = datetime.fromisoformat(loads(fields[b"event"])["occurredAt"])
            age = max((datetime.now(UTC) - occurred).total_seconds(), 0.0)
        return unacknowledged + unread, age


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _position(entry_id: bytes | str) -> int:
    return int(_text(entry_id).partition("-")[0])
