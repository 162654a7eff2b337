"""The events part's resources as its answers show them, each declared once by its response schema
(libs/common/shapes.py): `SHAPE.columns` to read a row, `SHAPE.of(row)` for the answer."""

from __future__ import annotations

from typing import Any

from libs.common.shapes import Row, Shape, as_text
from services.events import schemas

# Ids as text; the secret is read for the answers that show it (a new endpoint, a rotation).
ENDPOINT = Shape(schemas.Endpoint, computed={"id": as_text("id")}, extra_columns=("id", "secret"))
ENDPOINT_WITH_SECRET = Shape(schemas.EndpointWithSecret, computed={"id": as_text("id")}, extra_columns=("id",))

# A delivery's attempts, oldest first, as JSON PostgreSQL builds beside the delivery's row `d`.
ATTEMPT = Shape(schemas.Attempt)
ATTEMPTS_SQL = (
    f"coalesce((SELECT json_agg({ATTEMPT.json_sql('a')} ORDER BY a.number) FROM delivery_attempts a"
    " WHERE a.delivery_id = d.id), '[]')"
)
DELIVERY = Shape(
    schemas.Delivery,
    expressions={"attempts": ATTEMPTS_SQL},
    computed={name: as_text(name) for name in ("id", "endpoint_id", "event_id")},
    extra_columns=("id", "endpoint_id", "event_id"),
)


def _resource(row: Row) -> dict[str, Any] | None:
    if row["resource_type"] is None:
        return None
    return {"type": row["resource_type"], "id": row["resource_id"]}


AUDIT_EVENT = Shape(
    schemas.AuditEvent,
    computed={
        "id": as_text("id"),
        "actor": lambda row: {"kind": row["actor_kind"], "id": row["actor_id"], "label": row["actor_label"]},
        "resource": _resource,
    },
    extra_columns=("id", "actor_kind", "actor_id", "actor_label", "resource_type", "resource_id"),
)
