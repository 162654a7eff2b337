"""Reading a part's event stream as one member of a consumer group (docs/architecture.md, "Events").

The replicas of a consuming part form one group, so each entry is handled by one of them. An
entry is acknowledged only once handled; one left unacknowledged by a replica that died (or
whose handler failed) is claimed by another after CLAIM_IDLE_MS. Handlers must be idempotent:
a claimed entry may have been applied already.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from abc import ABC, abstractmethod
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from libs.common.encoding import loads
from libs.common.metrics import REDIS_ERRORS

log = logging.getLogger(__name__)

Entry = tuple[bytes, dict[bytes, bytes]]

READ_COUNT = 100
# Below the Redis client's socket timeout, so a quiet stream is not taken for a dead connection.
READ_BLOCK_MS = 500
CLAIM_IDLE_MS = 30_000
CLAIM_EVERY_SECONDS = 10.0
RETRY_SECONDS = 1.0


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

    @abstractmethod
    async def handle(self, entries: Iterable[Entry]) -> None:
        """Apply the entries and acknowledge those applied (`ack`); the rest stay pending."""

    async def ack(self, *entry_ids: bytes) -> None:
        await self._redis.xack(self._stream, self._group, *entry_ids)

    async def ensure_group(self) -> None:
        if self._ready:
            return
        try:
            await self._redis.xgroup_create(self._stream, self._group, id=self._start, mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._ready = True

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

    async def step(self) -> int:
        """One round: handle what is waiting (or wait briefly for it). Returns how many entries."""
        try:
            return await self._step()
        except RedisError:
            REDIS_ERRORS.labels("events_read").inc()
            log.warning("events of %s unreadable; retrying in %gs", self._stream, RETRY_SECONDS, exc_info=True)
            await asyncio.sleep(RETRY_SECONDS)
            return 0

    async def _step(self) -> int:
        await self.ensure_group()
        entries = await self._claim_stale()
        if not entries:
            # The client's annotation does not describe the reply: [[stream, [(id, fields), ...]], ...].
            answer: Any = await self._redis.xreadgroup(
                self._group, self._name, {self._stream: ">"}, count=READ_COUNT, block=READ_BLOCK_MS
            )
            entries = [entry for _, stream_entries in answer for entry in stream_entries] if answer else []
        await self.handle(entries)
        return len(entries)

    async def lag(self) -> tuple[int, float]:
        """Entries the group has not acknowledged or not yet read, and the age in seconds of the
        oldest one (from its event's `occurredAt`; 0 when none)."""
        await self.ensure_group()
        groups = await self._redis.xinfo_groups(self._stream)
        group = next(g for g in groups if _text(g["name"]) == self._group)
        unacknowledged, unread = int(group["pending"]), int(group.get("lag") or 0)
        if unacknowledged:
            first = _text((await self._redis.xpending(self._stream, self._group))["min"])
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
