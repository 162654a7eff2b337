"""The outbox: events written beside the change they describe, and the relay's bookkeeping."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_all, fetch_one, fetch_value

CREATED = "content.created"
CHANGED = "content.changed"
PUBLISHED = "content.published"
UNPUBLISHED = "content.unpublished"
DELETED = "content.deleted"


async def record_event(cur: Any, event_type: str, document: Row) -> None:
    """Queue an event about `document`; call it after the document's own write in the same transaction.

    The document row is locked by then, so two transactions changing one document queue their
    events in the order they commit.
    """
    await cur.execute(
        "INSERT INTO outbox (type, organization_id, product_id, document_id) VALUES (%s, %s, %s, %s)",
        (event_type, document["organization_id"], document["product_id"], document["id"]),
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


async def backlog(cur: Any) -> tuple[int, float]:
    """How many events are not yet published, and the age in seconds of the oldest (0 when none)."""
    row = await fetch_one(
        cur,
        "SELECT count(*) AS count, coalesce(extract(epoch FROM now() - min(occurred_at)), 0) AS age FROM ("
        " SELECT occurred_at FROM outbox WHERE position IS NULL"
        " UNION ALL SELECT occurred_at FROM outbox WHERE position IS NOT NULL AND published_at IS NULL) AS waiting",
    )
    assert row is not None
    return int(row["count"]), float(row["age"])


async def place_pending(cur: Any, limit: int) -> int:
    """Give the oldest events without a stream position the next positions, in insertion order.

    Run in a transaction of its own, committed before anything is published: a position, once
    handed out, belongs to its event for good, so publishing it again can be recognised.
    """
    last = await fetch_value(cur, "SELECT last_position FROM outbox_relay FOR UPDATE")
    rows = await fetch_all(cur, "SELECT seq FROM outbox WHERE position IS NULL ORDER BY seq LIMIT %s", (limit,))
    if not rows:
        return 0
    seqs = [row["seq"] for row in rows]
    positions = list(range(last + 1, last + 1 + len(seqs)))
    await cur.execute(
        "UPDATE outbox SET position = placed.position FROM unnest(%s::bigint[], %s::bigint[]) AS placed (seq, position)"
        " WHERE outbox.seq = placed.seq",
        (seqs, positions),
    )
    await cur.execute("UPDATE outbox_relay SET last_position = %s", (positions[-1],))
    return len(seqs)


async def follow_stream(cur: Any, stream_position: int) -> bool:
    """When the stream holds positions beyond the last one handed out, continue after them and
    place the unpublished events again. Returns whether anything moved."""
    last = await fetch_value(cur, "SELECT last_position FROM outbox_relay FOR UPDATE")
    if stream_position <= last:
        return False
    await cur.execute("UPDATE outbox SET position = NULL WHERE position IS NOT NULL AND published_at IS NULL")
    await cur.execute("UPDATE outbox_relay SET last_position = %s", (stream_position,))
    return True


async def placed_unpublished(cur: Any, limit: int) -> list[Row]:
    """Events with a position and not yet marked published, in position order."""
    return await fetch_all(
        cur,
        "SELECT position, id, type, organization_id, product_id, document_id, occurred_at FROM outbox"
        " WHERE position IS NOT NULL AND published_at IS NULL ORDER BY position LIMIT %s",
        (limit,),
    )


async def mark_published(cur: Any, up_to_position: int) -> None:
    await cur.execute(
        "UPDATE outbox SET published_at = clock_timestamp()"
        " WHERE position IS NOT NULL AND position <= %s AND published_at IS NULL",
        (up_to_position,),
    )


async def prune_published(cur: Any, retention_days: int) -> None:
    """Forget events published longer ago than the retention; the stream holds them now."""
    await cur.execute(
        "DELETE FROM outbox WHERE published_at < clock_timestamp() - make_interval(days => %s)", (retention_days,)
    )
