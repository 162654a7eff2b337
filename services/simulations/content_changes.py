"""Re-running tasks when content changes: the simulations part reads the content stream as a
consumer group of its own, and for each organization whose documents changed it queues one run
of every environment of its tasks that ask for it (`rerunOnChange`), unless one such run is
still waiting: a burst of edits costs one run, taken once the burst is read."""

from __future__ import annotations

import logging
from collections.abc import Iterable

import aiopg
import redis.asyncio as aioredis

from libs.common.db import fetch_all, transaction
from libs.common.encoding import loads
from libs.common.errors import ValidationFailed
from libs.common.stream_consumer import Entry, StreamConsumer
from services.simulations import queue
from services.simulations.assignments import assignment_for

log = logging.getLogger(__name__)

GROUP = "simulations"
TRIGGER = "content_change"
# What changes what agents read; a created document is a draft until published.
CHANGES = frozenset({"content.changed", "content.published", "content.unpublished", "content.deleted"})


async def rerun(pool: aiopg.Pool, organization_id: str) -> int:
    """Queue a re-run of each environment of the organization's re-run tasks; how many were queued."""
    queued = 0
    async with transaction(pool) as cur:
        environments = await fetch_all(
            cur,
            "SELECT e.id::text FROM environments e JOIN tasks t ON t.id = e.task_id"
            " WHERE t.organization_id = %s AND t.rerun_on_change AND t.deleted_at IS NULL AND e.deleted_at IS NULL"
            " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.environment_id = e.id AND r.status = 'queued'"
            "   AND r.trigger = %s)"
            " ORDER BY e.created_at FOR UPDATE OF e",
            (organization_id, TRIGGER),
        )
        for row in environments:
            try:
                environment, assignment = await assignment_for(cur, organization_id, row["id"])
            except ValidationFailed as refused:
                log.warning("environment %s cannot re-run: %s", row["id"], refused.details)
                continue
            queued += len(await queue.enqueue(cur, organization_id, environment, assignment, 1, TRIGGER))
    return queued


class ContentChanges(StreamConsumer):
    """Reads content events as the simulations group and queues the re-runs they call for."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool) -> None:
        # "$": only changes from now on; what happened before the part first read the stream is past.
        super().__init__(redis, stream, GROUP, start="$")
        self._pool = pool

    async def handle(self, entries: Iterable[Entry]) -> None:
        by_organization: dict[str, list[bytes]] = {}
        for entry_id, fields in entries:
            try:
                event = loads(fields[b"event"])
                organization_id, kind = str(event["organizationId"]), event["type"]
            except (KeyError, TypeError, ValueError):
                log.error("skipping malformed content event %r", entry_id)
                await self.ack(entry_id)
                continue
            if kind in CHANGES:
                by_organization.setdefault(organization_id, []).append(entry_id)
            else:
                await self.ack(entry_id)
        for organization_id, entry_ids in by_organization.items():
            await rerun(self._pool, organization_id)
            await self.ack(*entry_ids)
