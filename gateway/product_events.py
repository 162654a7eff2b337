"""The identity schema's product outbox, filled by a trigger (migrations/005_product_events.sql)
and published by the gateway's relay to `<REDIS_PREFIX>events:identity`."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from libs.common.changes import changes_answer
from libs.common.db import Row
from libs.common.relay import Outbox


def event_from_row(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "type": row["type"],
        "version": row["seq"],
        "organizationId": row["organization_id"],
        "product": {"id": row["product_id"], "name": row["name"], "slug": row["slug"], "deletedAt": row["deleted_at"]},
        "occurredAt": row["occurred_at"],
    }


PRODUCT_OUTBOX = Outbox("product_outbox", "product_outbox_relay", "identity.product-outbox-relay", event_from_row)


async def internal_product_changes(request: web.Request) -> web.Response:
    """GET /internal/product-changes: the product changes after a stream position, for the apps
    service's copy of the products when its stream lost entries (libs/common/catch_up.py)."""
    return await changes_answer(request, PRODUCT_OUTBOX)
