"""First-party capture: every request the App edge answered, read from its stream (`edge.requests`)
as a member of the `traffic` consumer group and recorded exactly as an ingested event.

The edge names the organization, App and domain of each request, so no host is looked up. An
entry's id becomes its event's id (`edge-<entry id>`): an entry read again, because the reply
that delivered it was lost or a replica died holding it, is a duplicate and counts once. Entries
are acknowledged only once their events are durable; a malformed entry is logged and acknowledged
(reading it again cannot mend it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis

from libs.common.stream_consumer import Entry, StreamConsumer
from services.traffic.batches import load_event
from services.traffic.hosts import AppHost
from services.traffic.recording import Outcome, Recorder

log = logging.getLogger(__name__)

GROUP = "traffic"
NUMBERS = {"status": int, "bytes": int, "durationMs": float}
TEXT_FIELDS = (
    "occurredAt",
    "host",
    "path",
    "method",
    "userAgent",
    "ip",
    "referer",
    "signature",
    "signatureInput",
    "signatureAgent",
)


def event_of(entry_id: bytes, fields: dict[bytes, bytes]) -> tuple[str, dict[str, Any], AppHost]:
    """The organization, the event and its App of one stream entry; ValueError when malformed."""
    text = {key.decode(): value.decode() for key, value in fields.items()}
    raw: dict[str, Any] = {"id": f"edge-{entry_id.decode()}"}
    for name in TEXT_FIELDS:
        if text.get(name):
            raw[name] = text[name]
    for name, kind in NUMBERS.items():
        if text.get(name):
            raw[name] = kind(text[name])
    raw.setdefault("userAgent", "")
    event = load_event(raw)
    try:
        return text["organizationId"], event, AppHost(text["appId"], text["domainId"])
    except KeyError as exc:
        raise ValueError(f"{exc.args[0]} is missing") from None


class EdgeRequests(StreamConsumer):
    def __init__(self, redis: aioredis.Redis, stream: str, recorder: Recorder) -> None:
        super().__init__(redis, stream, GROUP)
        self._recorder = recorder

    async def handle(self, entries: Iterable[Entry]) -> None:
        by_organization: dict[str, list[tuple[int, dict[str, Any], AppHost | None]]] = {}
        entry_ids = []
        for index, (entry_id, fields) in enumerate(entries):
            entry_ids.append(entry_id)
            try:
                organization_id, event, app_host = event_of(entry_id, fields)
            except ValueError as exc:
                log.error("skipping malformed edge request %r: %s", entry_id, exc)
                continue
            by_organization.setdefault(organization_id, []).append((index, event, app_host))
        now = datetime.now(UTC)
        for organization_id, events in by_organization.items():
            outcome = await self._recorder.record(organization_id, events, "edge", now, Outcome())
            for rejected in outcome.rejected:
                log.warning("edge request not recorded: %s", rejected["message"])
        if entry_ids:
            await self.ack(*entry_ids)
