"""The identity schema's product outbox, filled by a trigger (migrations/005_product_events.sql)
and published by the gateway's relay to `<REDIS_PREFIX>events:identity`."""

from __future__ import annotations

from typing import Any

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
