"""SQL of the events service: endpoints, events and deliveries, attempts, audit events."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from psycopg2.extras import Json

from libs.common.audit import SIGN_IN_ACTIONS, AuditRecord
from libs.common.cursors import NewestFirst
from libs.common.db import Row, fetch_all, fetch_one
from libs.common.encoding import dumps
from services.events.shapes import AUDIT_EVENT, DELIVERY, ENDPOINT

ENDPOINT_COLUMNS = ENDPOINT.columns
ROTATION_OVERLAP = "interval '24 hours'"
DELIVERIES = NewestFirst("d.created_at", "d.id")
AUDIT_EVENTS = NewestFirst("occurred_at", "id")


async def create_endpoint(cur: Any, organization_id: str, values: dict[str, Any], secret: str) -> Row:
    row = await fetch_one(
        cur,
        f"INSERT INTO webhook_endpoints (organization_id, url, events, description, secret)"
        f" VALUES (%s, %s, %s, %s, %s) RETURNING {ENDPOINT_COLUMNS}",
        (organization_id, values["url"], values["events"], values.get("description"), secret),
    )
    assert row is not None
    return row


async def list_endpoints(cur: Any, organization_id: str) -> list[Row]:
    return await fetch_all(
        cur,
        f"SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = %s AND deleted_at IS NULL"
        " ORDER BY created_at, id",
        (organization_id,),
    )


async def get_endpoint(cur: Any, organization_id: str, endpoint_id: str) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints"
        " WHERE organization_id = %s AND id = %s AND deleted_at IS NULL",
        (organization_id, endpoint_id),
    )


async def update_endpoint(cur: Any, organization_id: str, endpoint_id: str, values: dict[str, Any]) -> Row | None:
    """Change the given fields. Enabling again clears the platform's reason and the failing run."""
    sets = [f"{column} = %({column})s" for column in ("url", "events", "description", "enabled") if column in values]
    if values.get("enabled") is True:
        sets += ["disabled_reason = NULL", "failing_since = NULL"]
    elif values.get("enabled") is False:
        sets.append("disabled_reason = NULL")
    sets.append("updated_at = now()")
    return await fetch_one(
        cur,
        f"UPDATE webhook_endpoints SET {', '.join(sets)}"
        " WHERE organization_id = %(organization_id)s AND id = %(endpoint_id)s AND deleted_at IS NULL"
        f" RETURNING {ENDPOINT_COLUMNS}",
        {**values, "organization_id": organization_id, "endpoint_id": endpoint_id},
    )


async def delete_endpoint(cur: Any, organization_id: str, endpoint_id: str) -> Row | None:
    """Soft-delete the endpoint; its pending deliveries are given up."""
    row = await fetch_one(
        cur,
        "UPDATE webhook_endpoints SET deleted_at = now(), enabled = false, updated_at = now()"
        " WHERE organization_id = %s AND id = %s AND deleted_at IS NULL"
        f" RETURNING {ENDPOINT_COLUMNS}",
        (organization_id, endpoint_id),
    )
    if row is not None:
        await cur.execute(
            "UPDATE deliveries SET status = 'failed', finished_at = now(), next_attempt_at = NULL"
            " WHERE endpoint_id = %s AND status = 'pending'",
            (endpoint_id,),
        )
    return row


async def rotate_secret(cur: Any, organization_id: str, endpoint_id: str, secret: str) -> Row | None:
    return await fetch_one(
        cur,
        "UPDATE webhook_endpoints SET previous_secret = secret, secret = %s,"
        f" previous_secret_expires_at = now() + {ROTATION_OVERLAP}, updated_at = now()"
        " WHERE organization_id = %s AND id = %s AND deleted_at IS NULL"
        f" RETURNING {ENDPOINT_COLUMNS}",
        (secret, organization_id, endpoint_id),
    )


# Events and deliveries.


# One event stored, and a delivery queued to each endpoint that takes it, in one statement.
RECORD_EVENT = """
WITH stored AS (
    INSERT INTO events (id, organization_id, type, resource_key, payload)
    VALUES (%(event)s, %(organization)s, %(type)s, %(resource)s, %(payload)s)
    ON CONFLICT (id) DO NOTHING RETURNING id
)
INSERT INTO deliveries (endpoint_id, organization_id, event_id, event_type, resource_key, payload, next_attempt_at)
SELECT e.id, e.organization_id, %(event)s, %(type)s, %(resource)s, %(payload)s, now()
FROM webhook_endpoints e, stored
WHERE e.organization_id = %(organization)s AND e.deleted_at IS NULL {target}
ORDER BY e.id
ON CONFLICT DO NOTHING RETURNING id
"""
TO_SUBSCRIBERS = "AND e.enabled AND (%(type)s = ANY (e.events) OR '*' = ANY (e.events))"


def _event_params(event: dict[str, Any], resource_key: str, only_endpoint: str | None = None) -> dict[str, Any]:
    return {
        "event": event["id"],
        "type": event["type"],
        "resource": resource_key,
        "payload": _json(event),
        "organization": event["organizationId"],
        "endpoint": only_endpoint,
    }


async def record_event(cur: Any, event: dict[str, Any], resource_key: str, only_endpoint: str) -> list[str]:
    """Store an event once and queue a delivery to `only_endpoint` (a ping). Returns the new
    delivery's id; none when the event was stored before."""
    sql = RECORD_EVENT.format(target="AND e.id = %(endpoint)s")
    rows = await fetch_all(cur, sql, _event_params(event, resource_key, only_endpoint))
    return [str(row["id"]) for row in rows]


async def record_events(cur: Any, events: list[tuple[dict[str, Any], str]]) -> None:
    """Store each (event, resource key) once and queue a delivery to every enabled endpoint of
    its organization that takes its type; an event stored before (a replayed stream entry) is
    left as it is. One round trip: the statements are sent together and run in their order, so
    the deliveries' `seq` follows the events' (in order per resource)."""
    if not events:
        return
    sql = RECORD_EVENT.format(target=TO_SUBSCRIBERS)
    statements = [cur.mogrify(sql, _event_params(event, resource_key)) for event, resource_key in events]
    await cur.execute(b";".join(statements).decode())


def _json(value: Any) -> Json:
    return Json(value, dumps=lambda data: dumps(data).decode())


DELIVERY_COLUMNS = DELIVERY.columns_of("d")


async def get_delivery(cur: Any, endpoint_id: str, delivery_id: str) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE d.endpoint_id = %s AND d.id = %s",
        (endpoint_id, delivery_id),
    )


async def list_deliveries(cur: Any, endpoint_id: str, query: dict[str, Any]) -> dict[str, Any]:
    where = ["d.endpoint_id = %(endpoint)s", *DELIVERIES.where(query)]
    if "status" in query:
        where.append("d.status = %(status)s")
    rows = await fetch_all(
        cur,
        f"SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE {' AND '.join(where)} {DELIVERIES.order}",
        {"endpoint": endpoint_id, "status": query.get("status"), **DELIVERIES.params(query)},
    )
    page, next_cursor = DELIVERIES.page(rows, query)
    return {"deliveries": [DELIVERY.of(row) for row in page], "nextCursor": next_cursor}


async def retry_delivery(cur: Any, endpoint_id: str, delivery_id: str) -> Row | None:
    """Make a delivery due now (again, when it had failed or succeeded)."""
    await cur.execute(
        "UPDATE deliveries SET status = 'pending', next_attempt_at = now(), finished_at = NULL"
        " WHERE endpoint_id = %s AND id = %s",
        (endpoint_id, delivery_id),
    )
    return await get_delivery(cur, endpoint_id, delivery_id)


# Audit events.


# The columns of a stored record: the fields of the record the gateway publishes.
AUDIT_FIELDS = tuple(field.name for field in fields(AuditRecord))


async def store_audit_events(cur: Any, records: list[dict[str, Any]]) -> None:
    """Store audit records as the gateway published them; one stored before is left alone."""
    if not records:
        return
    columns = ", ".join(AUDIT_FIELDS)
    placeholders = ", ".join(f"%({name})s" for name in AUDIT_FIELDS)
    for record in records:
        await cur.execute(
            f"INSERT INTO audit_events ({columns}) VALUES ({placeholders}) ON CONFLICT (id) DO NOTHING",
            {name: record.get(name) for name in AUDIT_FIELDS},
        )


async def list_audit_events(
    cur: Any, organization_id: str, query: dict[str, Any], retention_days: int, with_sign_ins: bool
) -> dict[str, Any]:
    """A page of the organization's trail; members' sign-ins only `with_sign_ins`."""
    where = ["organization_id = %(organization)s", "occurred_at >= now() - make_interval(days => %(retention)s)"]
    if not with_sign_ins:
        where.append("action <> ALL(%(sign_in_actions)s)")
    if "actor" in query:
        where.append("(actor_id = %(actor)s OR actor_label = %(actor)s)")
    for name in ("action", "resource_type", "resource_id"):
        if name in query:
            where.append(f"{name} = %({name})s")
    if "since" in query:
        where.append("occurred_at >= %(since)s")
    if "until" in query:
        where.append("occurred_at < %(until)s")
    where += AUDIT_EVENTS.where(query)
    rows = await fetch_all(
        cur,
        f"SELECT {AUDIT_EVENT.columns} FROM audit_events WHERE {' AND '.join(where)} {AUDIT_EVENTS.order}",
        {
            **query,
            "organization": organization_id,
            "retention": retention_days,
            "sign_in_actions": list(SIGN_IN_ACTIONS),
            **AUDIT_EVENTS.params(query),
        },
    )
    page, next_cursor = AUDIT_EVENTS.page(rows, query)
    return {"events": [AUDIT_EVENT.of(row) for row in page], "nextCursor": next_cursor}


async def prune(cur: Any, audit_days: int, delivery_days: int) -> None:
    """Forget audit events and deliveries past their retention."""
    await cur.execute("DELETE FROM audit_events WHERE occurred_at < now() - make_interval(days => %s)", (audit_days,))
    await cur.execute(
        "DELETE FROM deliveries WHERE status <> 'pending' AND created_at < now() - make_interval(days => %s)",
        (delivery_days,),
    )
    await cur.execute(
        "DELETE FROM events WHERE received_at < now() - make_interval(days => %s)"
        " AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.event_id = events.id)",
        (delivery_days,),
    )
