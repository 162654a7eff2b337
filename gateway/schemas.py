"""Shapes of the gateway's own public routes (documentation of what gateway/views.py answers)."""

from __future__ import annotations

from marshmallow import fields, validate

from libs.common.schemas import ApiSchema, Ref


class Product(Ref):
    """A product of the organization."""


class Organization(Ref):
    """The organization a credential acts in."""


class CredentialUser(ApiSchema):
    id = fields.String(required=True)
    email = fields.String(required=True)
    name = fields.String(required=True)


class CredentialKey(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    prefix = fields.String(required=True)
    expires_at = fields.DateTime(required=True, allow_none=True)


class ApiKeyChange(CredentialKey):
    """An API key as an `api_key.*` event carries it (never its secret or hash), with who changed it."""

    scopes = fields.List(fields.String(), required=True)
    created_at = fields.DateTime(required=True)
    revoked_at = fields.DateTime(
        required=True, allow_none=True, metadata={"description": "When the key stops (or stopped) working."}
    )
    actor = fields.String(required=True, metadata={"description": "The user's email, or `operator`."})
    details = fields.Dict(
        required=True,
        metadata={"description": "Created: `scopes`, `expiresAt`; rotated: `replacedBy`, `stopsAt`."},
    )


class Credential(ApiSchema):
    # How the caller proved itself: an API key, a bearer token or a dashboard session.
    kind = fields.String(required=True, validate=validate.OneOf(["api_key", "bearer", "session"]))
    organization = fields.Nested(Organization, required=True)
    scopes = fields.List(fields.String(), required=True)
    # The user behind a bearer token or a session; null for an API key.
    user = fields.Nested(CredentialUser, required=True, allow_none=True)
    # The API key; null for a user.
    key = fields.Nested(CredentialKey, required=True, allow_none=True)
