"""The outbox relay: publishes a part's queued events to its Redis stream, each exactly once, in order.

A part that publishes events keeps an outbox table (rows with `seq`, `position`, `published_at`
and the event's own columns) and a one-row table of the last position handed out; `Outbox`
names them and turns a row into the event.

Two hazards and how they are met (docs/architecture.md, "Events"):
- Several workers and replicas each run a relay, but only the holder of a PostgreSQL advisory
  lock publishes. The lock lives on the relay's own session (PgBouncer's session pool in a
  cluster, deploy/pgbouncer.py), so a relay that dies or loses its connection frees it. A
  standby keeps no connection: it tries for the lock every STANDBY_RETRY_SECONDS on a fresh one
  and hangs up when it is taken, so the sessions held are one per outbox, whatever the number of
  workers and replicas (docs/operations.md, "Capacity"), and a standby takes over within that.
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
from dataclasses import dataclass
from typing import Any

import aiopg
import psycopg2
import redis.asyncio as aioredis
from psycopg2 import sql
from redis.exceptions import RedisError, ResponseError

from libs.common.db import (
    DICT_CURSOR,
    OUTAGE,
    Row,
    begun,
    closing_half_made,
    fetch_all,
    fetch_one,
    fetch_value,
    session_options,
)
from libs.common.encoding import dumps
from libs.common.metrics import REDIS_ERRORS

log = logging.getLogger(__name__)

BATCH_SIZE = 500
INTERVAL_SECONDS = 0.2
# How often a standby relay asks for the lock again.
STANDBY_RETRY_SECONDS = 5.0
# The stream keeps about this many entries; older ones are trimmed (consumers that fall
# further behind re-read from the publishing part).
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


def entry_id(position: int) -> str:
    return f"{position}-0"


@dataclass(frozen=True)
class Outbox:
    """One part's outbox: its tables (in the part's schema), relay lock and event shape."""

    table: str
    relay_table: str
    # Advisory locks are per database, and parts share one: each outbox needs a name of its own.
    lock_name: str
    event_from_row: Callable[[Row], dict[str, Any]]

    def query(self, text: str) -> sql.Composed:
        """`text` with `{outbox}` and `{relay}` standing for the two tables."""
        return sql.SQL(text).format(outbox=sql.Identifier(self.table), relay=sql.Identifier(self.relay_table))

    async def place_pending(self, cur: Any, limit: int) -> int:
        """Give the oldest events without a stream position the next positions, in insertion order.

        Run in a transaction of its own, committed before anything is published: a position, once
        handed out, belongs to its event for good, so publishing it again can be recognised.
        """
        last = await fetch_value(cur, self.query("SELECT last_position FROM {relay} FOR UPDATE"))
        rows = await fetch_all(
            cur, self.query("SELECT seq FROM {outbox} WHERE position IS NULL ORDER BY seq LIMIT %s"), (limit,)
        )
        if not rows:
            return 0
        seqs = [row["seq"] for row in rows]
        positions = list(range(last + 1, last + 1 + len(seqs)))
        await cur.execute(
            self.query(
                "UPDATE {outbox} SET position = placed.position"
                " FROM unnest(%s::bigint[], %s::bigint[]) AS placed (seq, position) WHERE {outbox}.seq = placed.seq"
            ),
            (seqs, positions),
        )
        await cur.execute(self.query("UPDATE {relay} SET last_position = %s"), (positions[-1],))
        return len(seqs)

    async def follow_stream(self, cur: Any, stream_position: int) -> bool:
        """When the stream holds positions beyond the last one handed out, continue after them and
        place the unpublished events again. Returns whether anything moved."""
        last = await fetch_value(cur, self.query("SELECT last_position FROM {relay} FOR UPDATE"))
        if stream_position <= last:
            return False
        await cur.execute(
            self.query("UPDATE {outbox} SET position = NULL WHERE position IS NOT NULL AND published_at IS NULL")
        )
        await cur.execute(self.query("UPDATE {relay} SET last_position = %s"), (stream_position,))
        return True

    async def backlog(self, cur: Any) -> tuple[int, float]:
        """How many events are not yet published, and the age in seconds of the oldest (0 when none)."""
        row = await fetch_one(
            cur,
            self.query(
                "SELECT count(*) AS count, coalesce(extract(epoch FROM now() - min(occurred_at)), 0) AS age"
                " FROM {outbox} WHERE published_at IS NULL"
            ),
        )
        assert row is not None
        return int(row["count"]), float(row["age"])

    async def placed_unpublished(self, cur: Any, limit: int) -> list[Row]:
        """Events with a position and not yet marked published, in position order."""
        return await fetch_all(
            cur,
            self.query(
                "SELECT * FROM {outbox} WHERE position IS NOT NULL AND published_at IS NULL ORDER BY position LIMIT %s"
            ),
            (limit,),
        )

    async def mark_published(self, cur: Any, up_to_position: int) -> None:
        await cur.execute(
            self.query(
                "UPDATE {outbox} SET published_at = clock_timestamp()"
                " WHERE position IS NOT NULL AND position <= %s AND published_at IS NULL"
            ),
            (up_to_position,),
        )

    async def prune_published(self, cur: Any, retention_days: int) -> None:
        """Forget events published longer ago than the retention; the stream holds them now.
        The highest position forgotten is kept, so `changes_after` can tell a reader what is gone."""
        await cur.execute(
            self.query(
                "WITH gone AS (DELETE FROM {outbox}"
                " WHERE published_at < clock_timestamp() - make_interval(days => %s) RETURNING position)"
                " UPDATE {relay} SET pruned_through = greatest(pruned_through, (SELECT max(position) FROM gone))"
            ),
            (retention_days,),
        )

    async def changes_after(self, cur: Any, after: int, limit: int) -> tuple[list[Row], bool]:
        """The first `limit` events placed after position `after`, in position order, and whether
        the outbox still holds every event after it (none pruned)."""
        rows = await fetch_all(
            cur,
            self.query("SELECT * FROM {outbox} WHERE position > %s ORDER BY position LIMIT %s"),
            (after, limit),
        )
        pruned_through = await fetch_value(cur, self.query("SELECT pruned_through FROM {relay}"))
        return rows, after >= pruned_through


class OutboxRelay:
    def __init__(self, dsn: str, schema: str, outbox: Outbox, redis: aioredis.Redis, stream: str) -> None:
        self._dsn = dsn
        self._schema = schema
        self._outbox = outbox
        self._stream = stream
        self._redis = redis
        self._script = redis.register_script(PUBLISH_SCRIPT)
        self._conn: aiopg.Connection | None = None
        self._holding = False
        self._pruned_at = 0.0
        self._standby_until = 0.0

    async def acquire(self) -> bool:
        """Whether this relay is the publisher: connect if need be, then try for the lock. A relay
        that does not get it hangs up: a standby holds no session."""
        if self._conn is None or self._conn.closed:
            self._holding = False
            with closing_half_made():
                self._conn = await aiopg.connect(
                    self._dsn,
                    options=session_options(self._schema),
                    timeout=10,
                    enable_hstore=False,
                    # Named in pg_stat_activity: its short transactions are the relay's, not a request's.
                    application_name=f"relay {self._outbox.lock_name}",
                )
            OUTAGE.answered()
        if not self._holding:
            async with self._conn.cursor() as cur:
                await cur.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (self._outbox.lock_name,))
                self._holding = bool((await cur.fetchone())[0])
            if not self._holding:
                await self.close()
                return False
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
        moved = await self._in_transaction(lambda cur: self._outbox.follow_stream(cur, stream_position))
        if moved:
            log.warning(
                "the event stream %s is ahead of the outbox; positions now continue after %s",
                self._stream,
                stream_position,
            )

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
                    await cur.execute("SELECT pg_advisory_unlock(hashtext(%s))", (self._outbox.lock_name,))
        await conn.close()

    async def _in_transaction(self, work: Callable[[Any], Awaitable[Any]]) -> Any:
        assert self._conn is not None
        async with self._conn.cursor(cursor_factory=DICT_CURSOR) as cur, begun(cur):
            return await work(cur)

    async def place(self) -> int:
        """Give pending events their stream positions (committed). Returns how many."""
        placed: int = await self._in_transaction(lambda cur: self._outbox.place_pending(cur, BATCH_SIZE))
        return placed

    async def placed(self) -> list[Row]:
        rows: list[Row] = await self._in_transaction(lambda cur: self._outbox.placed_unpublished(cur, BATCH_SIZE))
        return rows

    async def publish(self, rows: list[Row]) -> tuple[int, str]:
        """Add events to the stream in order. Returns how many are now in it (new or already
        there) and, when it stopped early, the error Redis gave for the next one."""
        args: list[Any] = [STREAM_MAX_ENTRIES]
        for row in rows:
            args += [entry_id(row["position"]), dumps(self._outbox.event_from_row(row))]
        done, error = await self._script(keys=[self._stream], args=args)
        return int(done), error.decode()

    async def mark(self, rows: list[Row]) -> None:
        if rows:
            await self._in_transaction(lambda cur: self._outbox.mark_published(cur, rows[-1]["position"]))

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
        if not self._holding and time.monotonic() < self._standby_until:
            return
        try:
            if not await self.acquire():
                self._standby_until = time.monotonic() + STANDBY_RETRY_SECONDS
                return
            while await self.relay_once() == BATCH_SIZE:
                pass
            if time.monotonic() - self._pruned_at > PRUNE_EVERY_SECONDS:
                await self._in_transaction(lambda cur: self._outbox.prune_published(cur, RETENTION_DAYS))
                self._pruned_at = time.monotonic()
        except RedisError:
            REDIS_ERRORS.labels("events_publish").inc()
            await self.close()
            raise
        except Exception:
            await self.close()  # start again from a fresh connection; a standby may take over meanwhile
            raise
