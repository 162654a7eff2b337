"""The outbox relay: publishes queued events to the Redis stream, each exactly once, in order.

Two hazards and how they are met (docs/architecture.md, "Events"):
- Several workers and replicas each run a relay, but only the holder of a PostgreSQL advisory
  lock publishes. The lock lives on the relay's own connection, so a relay that dies or loses
  its connection frees it and a standby takes over within a round.
- A crash between publishing and marking as published would publish again. Every event gets
  its stream position in a committed transaction before it is published, and its stream entry
  id is that position; Redis refuses an id at or below the stream's last one, so a second
  publication of the same event is refused instead of duplicated. Positions are handed out in
  the order events become visible, not in the order their transactions began, so an event
  that commits late still gets an id above everything already published.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiopg
import psycopg2
import redis.asyncio as aioredis
from prometheus_client import Gauge
from redis.exceptions import RedisError, ResponseError

from libs.common.db import DICT_CURSOR, Row, cursor, session_options
from libs.common.encoding import dumps
from libs.common.metrics import REDIS_ERRORS
from services.content.queries import outbox

log = logging.getLogger(__name__)

LOCK_NAME = "content.outbox-relay"
BATCH_SIZE = 500
INTERVAL_SECONDS = 0.2
# The stream keeps about this many entries; older ones are trimmed (consumers that fall
# further behind re-read from the content service).
STREAM_MAX_ENTRIES = 1_000_000
RETENTION_DAYS = 7
PRUNE_EVERY_SECONDS = 3600.0

# Adds a batch in order and stops at the first failure that is not "already published", so
# an event can never be skipped by a later one getting in first. Atomic: nothing interleaves.
PUBLISH_SCRIPT = """
for i = 2, #ARGV, 2 do
  local added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], ARGV[i], 'event', ARGV[i + 1])
  if type(added) == 'table' and added.err and not string.find(added.err, 'equal or smaller', 1, true) then
    return {(i - 2) / 2, added.err}
  end
end
return {(#ARGV - 1) / 2, ''}
"""


# Set by every content worker from the same table: the highest sample is the current one.
OUTBOX_BACKLOG = Gauge("content_outbox_backlog", "Events not yet published to the stream.", multiprocess_mode="livemax")
OUTBOX_OLDEST_AGE = Gauge(
    "content_outbox_oldest_age_seconds", "Age of the oldest event not yet published.", multiprocess_mode="livemax"
)
BACKLOG_EVERY_SECONDS = 5.0


async def measure_backlog(pool: aiopg.Pool) -> None:
    """Publish the outbox's backlog figures (a periodic task of every content worker)."""
    async with cursor(pool) as cur:
        count, age = await outbox.backlog(cur)
    OUTBOX_BACKLOG.set(count)
    OUTBOX_OLDEST_AGE.set(age)


def entry_id(position: int) -> str:
    return f"{position}-0"


class OutboxRelay:
    def __init__(self, dsn: str, schema: str, redis: aioredis.Redis, stream: str) -> None:
        self._dsn = dsn
        self._schema = schema
        self._stream = stream
        self._redis = redis
        self._script = redis.register_script(PUBLISH_SCRIPT)
        self._conn: aiopg.Connection | None = None
        self._holding = False
        self._pruned_at = 0.0

    async def acquire(self) -> bool:
        """Whether this relay is the publisher: connect if need be, then try for the lock."""
        if self._conn is None or self._conn.closed:
            self._holding = False
            self._conn = await aiopg.connect(
                self._dsn, options=session_options(self._schema), timeout=10, enable_hstore=False
            )
        if not self._holding:
            async with self._conn.cursor() as cur:
                await cur.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (LOCK_NAME,))
                self._holding = bool((await cur.fetchone())[0])
            if self._holding:
                await self._follow_stream()
        return self._holding

    async def _follow_stream(self) -> None:
        """Move past a stream that is ahead of this outbox's positions.

        A stream entry at a position this outbox never handed out was not published from this
        database: the database was recreated or restored to an earlier point while Redis kept the
        stream. Its positions would be refused as already published, so the events would be lost.
        Positions continue after the stream's last entry instead, and events placed but not yet
        marked published are placed again (published anew, at worst a second time, which
        consumers take as a replay).
        """
        try:
            info = await self._redis.xinfo_stream(self._stream)
        except ResponseError:
            return  # no stream yet
        last = info["last-generated-id"]
        stream_position = int((last.decode() if isinstance(last, bytes) else last).partition("-")[0])
        moved = await self._in_transaction(lambda cur: outbox.follow_stream(cur, stream_position))
        if moved:
            log.warning("the event stream %s is ahead of the outbox; positions now continue after %s",
                        self._stream, stream_position)  # fmt: skip

    async def close(self) -> None:
        """Give the lock back and drop the connection. The unlock lets a standby take over at once;
        without it the lock still goes with the connection, once the server notices."""
        conn, holding = self._conn, self._holding
        self._conn, self._holding = None, False
        if conn is None:
            return
        if holding and not conn.closed:
            with contextlib.suppress(psycopg2.Error):
                async with conn.cursor() as cur:
                    await cur.execute("SELECT pg_advisory_unlock(hashtext(%s))", (LOCK_NAME,))
        await conn.close()

    async def _in_transaction(self, work: Callable[[Any], Awaitable[Any]]) -> Any:
        assert self._conn is not None
        async with self._conn.cursor(cursor_factory=DICT_CURSOR) as cur, cur.begin():
            return await work(cur)

    async def place(self) -> int:
        """Give pending events their stream positions (committed). Returns how many."""
        placed: int = await self._in_transaction(lambda cur: outbox.place_pending(cur, BATCH_SIZE))
        return placed

    async def placed(self) -> list[Row]:
        rows: list[Row] = await self._in_transaction(lambda cur: outbox.placed_unpublished(cur, BATCH_SIZE))
        return rows

    async def publish(self, rows: list[Row]) -> tuple[int, str]:
        """Add events to the stream in order. Returns how many are now in it (new or already
        there) and, when it stopped early, the error Redis gave for the next one."""
        args: list[Any] = [STREAM_MAX_ENTRIES]
        for row in rows:
            args += [entry_id(row["position"]), dumps(outbox.event_from_row(row))]
        done, error = await self._script(keys=[self._stream], args=args)
        return int(done), error.decode()

    async def mark(self, rows: list[Row]) -> None:
        if rows:
            await self._in_transaction(lambda cur: outbox.mark_published(cur, rows[-1]["position"]))

    async def relay_once(self) -> int:
        """One batch: place, publish, mark. Returns how many events went out."""
        await self.place()
        rows = await self.placed()
        if not rows:
            return 0
        done, error = await self.publish(rows)
        await self.mark(rows[:done])
        if error:
            raise RuntimeError(f"the stream refused event {rows[done]['id']}: {error}")
        return done

    async def step(self) -> None:
        """A round of the periodic task: publish everything pending, if this relay holds the lock."""
        try:
            if not await self.acquire():
                return
            while await self.relay_once() == BATCH_SIZE:
                pass
            if time.monotonic() - self._pruned_at > PRUNE_EVERY_SECONDS:
                await self._in_transaction(lambda cur: outbox.prune_published(cur, RETENTION_DAYS))
                self._pruned_at = time.monotonic()
        except RedisError:
            REDIS_ERRORS.labels("events_publish").inc()
            await self.close()
            raise
        except Exception:
            await self.close()  # start again from a fresh connection; a standby may take over meanwhile
            raise
