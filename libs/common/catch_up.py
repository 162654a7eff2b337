"""Data derived from another part's events that heals by itself when its stream lost entries.

The consuming part keeps, in its own schema (`event_progress`), the position through which it
has applied the source's changes. At every check (every CHECK_EVERY_SECONDS, and at once when
its consumer had to make its group again) it compares that mark with the stream:
- The stream still holds the change right after the mark: the consumer group covers everything
  from there on, and the mark moves up to the position through which the group has acknowledged
  every entry (an entry is acknowledged only once applied).
- It does not: Redis came back empty (its unacknowledged entries are gone with the old stream),
  or trimmed entries a slow reader had not reached. The changes after the mark are read from the
  part that owns them (libs/common/changes.py) and applied, a page at a time, the mark following.
Applying is idempotent, so a change both read here and delivered by the stream ends the same.
Only when the owner has pruned changes after the mark (a reader more than a week behind) is an
operator's rebuild still needed; that is logged as an error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiopg
from redis.exceptions import RedisError

from libs.common.clients import Changes
from libs.common.db import cursor, fetch_value
from libs.common.errors import ApiError
from libs.common.metrics import REDIS_ERRORS
from libs.common.stream_consumer import StreamConsumer
from libs.contract.internal_bodies import CHANGES_PAGE_MAX

log = logging.getLogger(__name__)

CHECK_EVERY_SECONDS = 5.0
# How often `step` looks whether a check is due: the wait after the group was found lost.
STEP_SECONDS = 0.5

ReadChanges = Callable[[int], Awaitable[Changes]]
ApplyEvents = Callable[[list[dict[str, Any]]], Awaitable[None]]


class NotApplied(Exception):
    """Some changes could not be applied (the applier logged why); they are read again at the next check."""


class CatchUp:
    """Keeps `consumer`'s part complete: `read(after)` gives the owner's changes after a position,
    `apply(events)` applies a list of them (raising NotApplied when any failed)."""

    def __init__(
        self,
        consumer: StreamConsumer,
        pool: aiopg.Pool,
        name: str,
        read: ReadChanges,
        apply: ApplyEvents,
        *,
        from_group: bool = False,
    ):
        self._consumer = consumer
        self._pool = pool
        # The row of `event_progress`, and the owner's name in log lines.
        self._name = name
        self._read = read
        self._apply = apply
        # Without a mark yet, start where the consumer group stands rather than at 0: for a part
        # that takes only what happens from now on (the events part does not announce the past).
        self._from_group = from_group
        self._checked_at: float | None = None

    async def step(self) -> None:
        """A round of the periodic task: check when due, or at once after the group was lost."""
        now = asyncio.get_running_loop().time()
        due = self._checked_at is None or now - self._checked_at >= CHECK_EVERY_SECONDS
        if not (due or self._consumer.group_lost.is_set()):
            return
        self._consumer.group_lost.clear()
        self._checked_at = now
        try:
            await self.check()
        except RedisError:
            REDIS_ERRORS.labels("events_read").inc()  # the consumer logs Redis being away
        except ApiError as exc:  # the owner unreachable or not ready: the next check tries again
            log.warning(
                "catching up %s failed: %s %s; retrying in %gs",
                self._name,
                exc.status,
                exc.message,
                CHECK_EVERY_SECONDS,
            )
        except NotApplied:
            pass  # logged by the applier; the mark stays before them

    async def check(self) -> int:
        """Bring the mark up to date, reading from the owner what the stream lacks. Returns how
        many changes were read from the owner."""
        mark = await self.mark()
        first, acknowledged = await self._consumer.coverage()
        if mark is None:
            if not self._from_group:
                mark = 0
            elif acknowledged is None:  # no group yet: nothing is taken before it exists
                return 0
            else:
                await self._advance(acknowledged, floor=0)
                return 0
        if first is not None and first <= mark + 1:
            if acknowledged is not None and acknowledged > mark:
                await self._advance(acknowledged, floor=first - 1)
            return 0
        return await self._replay(mark)

    async def _replay(self, mark: int) -> int:
        replayed = 0
        while True:
            changes = await self._read(mark)
            if not changes.complete and replayed == 0:
                log.error(
                    "changes of %s after position %d are no longer kept by their owner; what they changed"
                    " needs the operator's rebuild (docs/operations.md)",
                    self._name,
                    mark,
                )
            if not changes.events:
                break
            await self._apply([event for _, event in changes.events])
            replayed += len(changes.events)
            mark = changes.events[-1][0]
            await self._advance(mark, floor=0)
            if len(changes.events) < CHANGES_PAGE_MAX:
                break
        if replayed:
            log.warning(
                "%d changes of %s were missing from the event stream (Redis lost or trimmed them);"
                " read from their owner and applied, through position %d",
                replayed,
                self._name,
                mark,
            )
        return replayed

    async def mark(self) -> int | None:
        """The position through which every change is applied (None before the first)."""
        async with cursor(self._pool) as cur:
            position = await fetch_value(cur, "SELECT position FROM event_progress WHERE consumer = %s", (self._name,))
        return None if position is None else int(position)

    async def _advance(self, position: int, *, floor: int) -> None:
        """Move the mark up to `position`, provided it is still at least `floor` (another replica
        may have moved it meanwhile; it never goes down)."""
        async with cursor(self._pool) as cur:
            await cur.execute(
                "INSERT INTO event_progress (consumer, position) VALUES (%(name)s, %(position)s)"
                " ON CONFLICT (consumer) DO UPDATE SET position = excluded.position"
                " WHERE event_progress.position < excluded.position AND event_progress.position >= %(floor)s",
                {"name": self._name, "position": position, "floor": floor},
            )
