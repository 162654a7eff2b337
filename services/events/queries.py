"""SQL of the events service: endpoints, events and deliveries, attempts, audit events."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg2.extras import Json

from libs.common.audit import SIGN_IN_ACTIONS
from libs.common.cursors import page_of
from libs.common.db import Row, fetch_all, fetch_one
from libs.common.encoding import dumps

ENDPOINT_COLUMNS = (
    "id, url, events, description, enabled, disabled_reason, failing_since, created_at, updated_at,"
    " secret, previous_secret, previous_secret_expires_at"
)
ROTATION_OVERLAP = "interval '24 hours'"


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def endpoint_view(row: Row, *, with_secret: bool = False) -> dict[str, Any]:
    view = {
        "id": str(row["id"]),
        "url": row["url"],
        "events": list(row["events"]),
        "description": row["description"],
        "enabled": row["enabled"],
        "disabledReason": row["disabled_reason"],
        "failingSince": _iso(row["failing_since"]),
        "createdAt": _iso(row["created_at"]),
        "updatedAt": _iso(row["updated_at"]),
    }
    if with_secret:
        view["secret"] = row["secret"]
    return view


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


DELIVERY_COLUMNS = (
    "d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.next_attempt_at, d.created_at, d.finished_at,"
    " coalesce((SELECT json_agg(json_build_object('number', a.number, 'attemptedAt', a.attempted_at,"
    " 'statusCode', a.status_code, 'latencyMs', a.latency_ms, 'response', a.response, 'error', a.error)"
    " ORDER BY a.number) FROM delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS attempt_list"
)


def delivery_view(row: Row) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "endpointId": str(row["endpoint_id"]),
        "eventId": str(row["event_id"]),
        "eventType": row["event_type"],
        "status": row["status"],
        "attempts": row["attempt_list"],
        "nextAttemptAt": _iso(row["next_attempt_at"]),
        "createdAt": _iso(row["created_at"]),
        "finishedAt": _iso(row["finished_at"]),
    }


async def get_delivery(cur: Any, endpoint_id: str, delivery_id: str) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE d.endpoint_id = %s AND d.id = %s",
        (endpoint_id, delivery_id),
    )


async def list_deliveries(cur: Any, endpoint_id: str, query: dict[str, Any]) -> dict[str, Any]:
    where = ["d.endpoint_id = %(endpoint)s"]
    if "status" in query:
        where.append("d.status = %(status)s")
    after = query.get("cursor")
    if after is not None:
        where.append("(d.created_at, d.id) < (%(after_at)s, %(after_id)s)")
    rows = await fetch_all(
        cur,
        f"SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE {' AND '.join(where)}"
        " ORDER BY d.created_at DESC, d.id DESC LIMIT %(limit)s",
        {
            "endpoint": endpoint_id,
            "status": query.get("status"),
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": query["limit"] + 1,
        },
    )
    page, next_cursor = page_of(rows, query["limit"], lambda row: (row["created_at"], str(row["id"])))
    return {"deliveries": [delivery_view(row) for row in page], "nextCursor": next_cursor}


async def retry_delivery(cur: Any, endpoint_id: str, delivery_id: str) -> Row | None:
    """Make a delivery due now (again, when it had failed or succeeded)."""
    await cur.execute(
        "UPDATE deliveries SET status = 'pending', next_attempt_at = now(), finished_at = NULL"
        " WHERE endpoint_id = %s AND id = %s",
        (endpoint_id, delivery_id),
    )
    return await get_delivery(cur, endpoint_id, delivery_id)


# Audit events.


def audit_view(row: Row) -> dict[str, Any]:
    resource = None
    if row["resource_type"] is not None:
        resource = {"type": row["resource_type"], "id": row["resource_id"]}
    return {
        "id": str(row["id"]),
        "occurredAt": _iso(row["occurred_at"]),
        "actor": {"kind": row["actor_kind"], "id": row["actor_id"], "label": row["actor_label"]},
        "action": row["action"],
        "resource": resource,
        "method": row["method"],
        "path": row["path"],
        "clientAddress": row["client_address"],
        "requestId": row["request_id"],
        "status": row["status"],
        "result": row["result"],
    }


AUDIT_FIELDS = (
    "id", "organization_id", "occurred_at", "actor_kind", "actor_id", "actor_label", "action", "resource_type",
    "resource_id", "method", "path", "client_address", "request_id", "status", "result",
)  # fmt: skip


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
    after = query.get("cursor")
    if after is not None:
        where.append("(occurred_at, id) < (%(after_at)s, %(after_id)s)")
    rows = await fetch_all(
        cur,
        f"SELECT * FROM audit_events WHERE {' AND '.join(where)} ORDER BY occurred_at DESC, id DESC LIMIT %(limit)s",
        {
            **query,
            "organization": organization_id,
            "retention": retention_days,
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": query["limit"] + 1,
            "sign_in_actions": list(SIGN_IN_ACTIONS),
        },
    )
    page, next_cursor = page_of(rows, query["limit"], lambda row: (row["occurred_at"], str(row["id"])))
    return {"events": [audit_view(row) for row in page], "nextCursor": next_cursor}


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
