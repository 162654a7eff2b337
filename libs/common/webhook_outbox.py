"""The webhook outbox a part keeps for the events it announces to organizations' webhooks.

A part writes `record(cur, type, organization_id, resource_key, data)` in the transaction of the
change (or a trigger does), so a change that committed is announced even when the part stops
right after; its relay (libs/common/relay.py) publishes the rows, in order, to
`<REDIS_PREFIX>events:webhooks:<part>`, which the events service reads; what the stream lost, it
reads from the part's `GET /internal/webhook-changes` (`internal_webhook_changes`). The table and its relay
table are made by the part's migration (see gateway/migrations/013_webhook_outbox.sql).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web
from psycopg2.extras import Json

from libs.common.changes import changes_answer
from libs.common.db import Row
from libs.common.encoding import dumps
from libs.common.events import webhook_events_stream
from libs.common.relay import INTERVAL_SECONDS, Outbox, OutboxRelay
from libs.common.settings import ServiceSettings
from libs.common.state import REDIS, SETTINGS
from libs.common.tasks import periodic


def event_from_row(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "type": row["type"],
        "occurredAt": row["occurred_at"],
        "organizationId": row["organization_id"],
        "resourceKey": row["resource_key"],
        "data": row["data"],
    }


def webhook_outbox(part: str) -> Outbox:
    return Outbox("webhook_outbox", "webhook_outbox_relay", f"{part}.webhook-outbox-relay", event_from_row)


async def record(cur: Any, event_type: str, organization_id: str, resource_key: str, data: dict[str, Any]) -> None:
    """Queue a webhook event; call it after the resource's own write, in the same transaction
    (the resource's row is locked then, so one resource's events queue in commit order)."""
    await cur.execute(
        "INSERT INTO webhook_outbox (type, organization_id, resource_key, data) VALUES (%s, %s, %s, %s)",
        (event_type, organization_id, resource_key, Json(data, dumps=lambda value: dumps(value).decode())),
    )


async def internal_webhook_changes(request: web.Request) -> web.Response:
    """GET /internal/webhook-changes: the part's webhook events after a stream position, for the
    events part when its stream lost entries (libs/common/catch_up.py)."""
    return await changes_answer(request, webhook_outbox(request.app[SETTINGS].name))


async def webhook_relay_ctx(app: web.Application) -> AsyncIterator[None]:
    """Every worker runs the part's webhook relay; the one holding the lock publishes."""
    settings: ServiceSettings = app[SETTINGS]
    relay = OutboxRelay(
        settings.session_database_url,
        settings.db_schema,
        webhook_outbox(settings.name),
        app[REDIS],
        webhook_events_stream(settings.redis_prefix, settings.name),
    )
    try:
        async with periodic(INTERVAL_SECONDS, relay.step, "webhook-outbox-relay"):
            yield
    finally:
        await relay.close()
