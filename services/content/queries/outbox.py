"""The outbox: events written beside the change they describe (published by libs/common/relay.py)."""

from __future__ import annotations

from typing import Any

from libs.common import webhook_outbox
from libs.common.db import Row
from libs.common.relay import Outbox
from services.content.shapes import DOCUMENT

CREATED = "content.created"
CHANGED = "content.changed"
PUBLISHED = "content.published"
UNPUBLISHED = "content.unpublished"
DELETED = "content.deleted"

# What organizations' webhooks are told of each (services/content/contract.py, EVENTS).
WEBHOOK_TYPES = {
    CREATED: "content.document.created",
    CHANGED: "content.document.updated",
    PUBLISHED: "content.document.published",
    UNPUBLISHED: "content.document.unpublished",
    DELETED: "content.document.deleted",
}


async def record_event(cur: Any, event_type: str, document: Row) -> None:
    """Queue an event about `document` for the other parts (the outbox, naming the document) and
    for organizations' webhooks (the document as the API shows it); call it after the document's
    own write in the same transaction.

    The document row is locked by then, so two transactions changing one document queue their
    events in the order they commit.
    """
    await cur.execute(
        "INSERT INTO outbox (type, organization_id, product_id, document_id) VALUES (%s, %s, %s, %s)",
        (event_type, document["organization_id"], document["product_id"], document["id"]),
    )
    await webhook_outbox.record(
        cur,
        WEBHOOK_TYPES[event_type],
        str(document["organization_id"]),
        f"content.document:{document['id']}",
        DOCUMENT.of(document),
    )


def event_from_row(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "type": row["type"],
        "organizationId": row["organization_id"],
        "productId": row["product_id"],
        "documentId": row["document_id"],
        "occurredAt": row["occurred_at"],
    }


CONTENT_OUTBOX = Outbox("outbox", "outbox_relay", "content.outbox-relay", event_from_row)
