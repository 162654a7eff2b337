"""API keys as the gateway's identity announces them: the `api_key.*` webhook events and the shape
of their data. Declared on the ground floor because two parts name them: the gateway, which records
the events (gateway/identity/auth/key_changes.py) and answers keys in these shapes, and the events
part, whose catalog (services/events/catalog.py) lists every announcing part's events.
"""

from __future__ import annotations

from marshmallow import fields

from libs.contract.api_schema import ApiSchema
from libs.contract.event import Event


class CredentialKey(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    prefix = fields.String(required=True)
    expires_at = fields.DateTime(required=True, allow_none=True)


class ApiKey(CredentialKey):
    """An API key as its listings show it (never its secret or hash)."""

    scopes = fields.List(fields.String(), required=True)
    created_at = fields.DateTime(required=True)
    revoked_at = fields.DateTime(
        required=True, allow_none=True, metadata={"description": "When the key stops (or stopped) working."}
    )


class ApiKeyChange(ApiKey):
    """An API key as an `api_key.*` event carries it (never its secret or hash), with who changed it."""

    actor = fields.String(required=True, metadata={"description": "The user's email, or `operator`."})
    details = fields.Dict(
        required=True,
        metadata={"description": "Created: `scopes`, `expiresAt`; rotated: `replacedBy`, `stopsAt`."},
    )


# Recorded by the functions that change a key (gateway/identity/auth/key_changes.py), in their transaction.
API_KEY_EVENTS: tuple[Event, ...] = tuple(
    Event(f"api_key.{action}", summary, ApiKeyChange, "Identity")
    for action, summary in (
        ("created", "An API key was created."),
        ("rotated", "An API key was rotated: `details` names its successor and when it stops working."),
        ("revoked", "An API key was revoked."),
    )
)
