"""The content stream, read by every edge process on its own (no consumer group: each replica's
copies need every change): an event names a document's organization, whose Apps' answers are
dropped at once (services/edge/store.py). Reading starts at the stream's end; the copies were
read from apps after that, so nothing before it matters.

When the stream cannot be read (Redis down, the stream lost) what changed meanwhile is unknown,
so every answer is dropped and made again from apps until reading resumes.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from libs.common.encoding import loads
from libs.common.metrics import REDIS_ERRORS
from services.edge.store import Store

log = logging.getLogger(__name__)

# Below the Redis client's socket timeout, so a quiet stream is not taken for a dead connection.
READ_BLOCK_MS = 500
READ_COUNT = 500
RETRY_SECONDS = 1.0


class ContentChanges:
    def __init__(self, redis: aioredis.Redis, stream: str, store: Store) -> None:
        self._redis = redis
        self._stream = stream
        self._store = store
        self._after: str | None = None

    async def step(self) -> None:
        """Read what was announced after the last entry seen (waiting up to READ_BLOCK_MS) and apply it."""
        try:
            if self._after is None:
                last: Any = await self._redis.xrevrange(self._stream, count=1)
                self._after = last[0][0].decode() if last else "0-0"
            read: Any = await self._redis.xread({self._stream: self._after}, count=READ_COUNT, block=READ_BLOCK_MS)
        except RedisError as exc:
            REDIS_ERRORS.labels("edge_content_changes").inc()
            log.warning("content changes unreadable (%r): every answer is made again until they are", exc)
            self._store.forget_all_answers()
            self._after = None
            await asyncio.sleep(RETRY_SECONDS)
            return
        for _, entries in read or ():
            for entry_id, fields in entries:
                self._after = entry_id.decode()
                event = loads(fields[b"event"])
                self._store.forget_answers_of(event["organizationId"])
