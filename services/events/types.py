"""The webhook event types an endpoint may subscribe to (docs/architecture.md, "Events: webhooks")."""

from __future__ import annotations

from services.events.catalog import BY_TYPE

EVENT_TYPES: dict[str, str] = {event_type: event.summary for event_type, event in BY_TYPE.items()}
# Sent by `POST /api/v1/webhook-endpoints/{id}/test` only, to that endpoint.
PING = "ping"
ALL = "*"
