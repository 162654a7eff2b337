"""What the events service reads: the parts' event streams (turned into webhook events and their
deliveries) and the audit stream (stored as audit events).

Each source is a consumer group over one stream (libs/common/stream_consumer.py): an entry is
acknowledged only once stored, so an entry read twice (a crash before the acknowledgement) is
stored once, by its event id. What a stream lost (Redis came back empty) is read from the part
that published it and stored the same way (`apply_events`, libs/common/catch_up.py); the audit
stream has no such source, so audit records it held unread are lost with it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import aiopg
import redis.asyncio as aioredis

from libs.common.db import transaction
from libs.common.encoding import loads
from libs.common.errors import NotFound
from libs.common.internal_token import Organization, service_caller
from libs.common.stream_consumer import Entry, StreamConsumer
from libs.contract.clients import ContentClient
from services.events import queries

log = logging.getLogger(__name__)

GROUP = "events-webhooks"
AUDIT_GROUP = "events-audit"

# The content stream's types (services/content/queries/outbox.py) as webhook event types.
CONTENT_TYPES = {
    "content.created": "content.document.created",
    "content.changed": "content.document.updated",
    "content.published": "content.document.published",
    "content.unpublished": "content.document.unpublished",
    "content.deleted": "content.document.deleted",
}


class PartEvents(StreamConsumer):
    """A part's webhook events, as its `webhook_outbox` relay published them: `{id, type,
    occurredAt, organizationId, resourceKey, data}`."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool) -> None:
        super().__init__(redis, stream, GROUP)
        self._pool = pool

    async def handle(self, entries: Iterable[Entry]) -> None:
        """A batch in one transaction, in stream order, acknowledged once it committed."""
        batch = list(entries)
        if not batch:
            return
        await self.apply_events([loads(fields[b"event"]) for _, fields in batch])
        await self.ack(*(entry_id for entry_id, _ in batch))

    async def apply_events(self, events: list[dict[str, Any]]) -> None:
        """Store the events (from the stream, or from their part when the stream lost them), in one transaction."""
        async with transaction(self._pool) as cur:
            for event in events:
                webhook_event = {key: event[key] for key in ("id", "type", "occurredAt", "organizationId", "data")}
                await queries.record_event(cur, webhook_event, event["resourceKey"])


class ContentEvents(StreamConsumer):
    """The content service's events name a document; the webhook event carries it as the API shows it."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool, content: ContentClient) -> None:
        # The content stream predates webhooks and holds up to a million entries: a group made
        # for the first time starts at its end ("$"), not by announcing the whole history again.
        super().__init__(redis, stream, GROUP, start="$")
        self._pool = pool
        self._content = content

    async def handle(self, entries: Iterable[Entry]) -> None:
        for entry_id, fields in entries:
            await self.announce(loads(fields[b"event"]))
            await self.ack(entry_id)

    async def apply_events(self, events: list[dict[str, Any]]) -> None:
        """Announce the events the stream lost, read from the content service, in order."""
        for event in events:
            await self.announce(event)

    async def announce(self, event: dict[str, Any]) -> None:
        """Store the webhook event of a content event, with the document as the API shows it."""
        webhook_type = CONTENT_TYPES.get(event["type"])
        if webhook_type is None:
            return
        caller = service_caller("events", Organization(id=event["organizationId"], slug="", name=""))
        try:
            document = await self._content.document(caller, event["documentId"])
        except NotFound:
            return  # not of this organization: nothing to announce
        webhook_event = {
            "id": event["id"],
            "type": webhook_type,
            "occurredAt": event["occurredAt"],
            "organizationId": event["organizationId"],
            "data": document,
        }
        async with transaction(self._pool) as cur:
            await queries.record_event(cur, webhook_event, f"content.document:{event['documentId']}")


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
