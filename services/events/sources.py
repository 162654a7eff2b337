"""What the events service reads: the parts' webhook streams (stored as webhook events with their
deliveries) and the audit stream (stored as audit events). Each event arrives whole, as its part
recorded it: the events part never calls a part back.

Each source is a consumer group over one stream (libs/common/stream_consumer.py): an entry is
acknowledged only once stored, so an entry read twice (a crash before the acknowledgement) is
stored once, by its event id. What a stream lost (Redis came back empty) is read from the part
that published it and stored the same way (`apply_events`, libs/common/catch_up.py); the audit
stream has no such source, so audit records it held unread are lost with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import aiopg
import redis.asyncio as aioredis

from libs.common.db import transaction
from libs.common.encoding import loads
from libs.common.stream_consumer import Entry, StreamConsumer
from services.events import queries

log = logging.getLogger(__name__)

GROUP = "events-webhooks"
AUDIT_GROUP = "events-audit"


class PartEvents(StreamConsumer):
    """A part's webhook events, as its `webhook_outbox` relay published them: `{id, type,
    occurredAt, organizationId, resourceKey, data}`."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool, stored: Callable[[], None]) -> None:
        super().__init__(redis, stream, GROUP)
        self._pool = pool
        # Told once events were stored (their deliveries are due): the deliverer claims at once.
        self._stored = stored

    async def handle(self, entries: Iterable[Entry]) -> None:
        """A batch in one transaction, in stream order, acknowledged once it committed."""
        batch = list(entries)
        if not batch:
            return
        await self.apply_events([loads(fields[b"event"]) for _, fields in batch])
        await self.ack(*(entry_id for entry_id, _ in batch))

    async def apply_events(self, events: list[dict[str, Any]]) -> None:
        """Store the events (from the stream, or from their part when the stream lost them), in one transaction."""
        fields = ("id", "type", "occurredAt", "organizationId", "data")
        async with transaction(self._pool) as cur:
            await queries.record_events(
                cur, [({key: event[key] for key in fields}, event["resourceKey"]) for event in events]
            )
        self._stored()


class AuditRecords(StreamConsumer):
    """Audit records as the gateway and the operator's commands publish them (libs/common/audit.py)."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool) -> None:
        super().__init__(redis, stream, AUDIT_GROUP)
        self._pool = pool

    async def handle(self, entries: Iterable[Entry]) -> None:
        batch = list(entries)
        if not batch:
            return
        records: list[dict[str, Any]] = []
        for _, fields in batch:
            record = loads(fields[b"record"])
            record["occurred_at"] = datetime.fromisoformat(record["occurred_at"])
            records.append(record)
        async with transaction(self._pool) as cur:
            await queries.store_audit_events(cur, records)
        await self.ack(*(entry_id for entry_id, _ in batch))
