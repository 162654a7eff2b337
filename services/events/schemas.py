"""Request and response shapes of the events service: webhook endpoints, deliveries, audit events."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from marshmallow import fields, validate

from libs.common.cursors import PageCursor
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import StrictBoolean, StrictString, UtcDateTime, length
from services.events.types import ALL, EVENT_TYPES, PING

URL_MAX = 2048
DESCRIPTION_MAX = 500
MAX_EVENT_TYPES = 50
PAGE_DEFAULT = 50
PAGE_MAX = 200
EVENT_CHOICES = (ALL, *EVENT_TYPES)


def events_field(**kwargs: Any) -> fields.List[str]:
    return fields.List(
        StrictString(validate=validate.OneOf(EVENT_CHOICES)),
        validate=validate.Length(min=1, max=MAX_EVENT_TYPES),
        metadata={"description": 'Event types to receive, or `["*"]` for all.'},
        **kwargs,
    )


class EndpointCreate(ApiSchema):
    url = StrictString(required=True, validate=length(1, URL_MAX))
    events = events_field(required=True)
    description = StrictString(allow_none=True, validate=length(0, DESCRIPTION_MAX))


class EndpointUpdate(ApiSchema):
    url = StrictString(validate=length(1, URL_MAX))
    events = events_field()
    description = StrictString(allow_none=True, validate=length(0, DESCRIPTION_MAX))
    enabled = StrictBoolean()


class PageQuery(ApiSchema):
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(datetime.fromisoformat)


class DeliveryListQuery(PageQuery):
    status = fields.String(validate=validate.OneOf(("pending", "succeeded", "failed")))


class AuditListQuery(PageQuery):
    actor = fields.String(
        validate=length(1, 320), metadata={"description": "A user id, an API key's prefix or `operator`."}
    )
    action = fields.String(validate=length(1, 200))
    resource_type = fields.String(validate=length(1, 100))
    resource_id = fields.String(validate=length(1, 200))
    since = UtcDateTime(metadata={"description": "Only events at or after this time (ISO 8601)."})
    until = UtcDateTime(metadata={"description": "Only events before this time (ISO 8601)."})


class Endpoint(ApiSchema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    description = fields.String(required=True, allow_none=True)
    enabled = fields.Boolean(required=True)
    disabled_reason = fields.String(required=True, allow_none=True)
    failing_since = fields.String(required=True, allow_none=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class EndpointWithSecret(Endpoint):
    secret = fields.String(required=True, metadata={"description": "The signing secret (`whsec_…`), shown once."})


class EndpointList(ApiSchema):
    endpoints = fields.List(fields.Nested(Endpoint), required=True)


class Attempt(ApiSchema):
    number = fields.Integer(required=True)
    attempted_at = fields.String(required=True)
    status_code = fields.Integer(required=True, allow_none=True)
    latency_ms = fields.Integer(required=True)
    response = fields.String(required=True, metadata={"description": "The first 1 KB of the answer."})
    error = fields.String(required=True, allow_none=True)


class Delivery(ApiSchema):
    id = fields.String(required=True)
    endpoint_id = fields.String(required=True)
    event_id = fields.String(required=True)
    event_type = fields.String(required=True)
    status = fields.String(required=True)
    attempts = fields.List(fields.Nested(Attempt), required=True)
    next_attempt_at = fields.String(required=True, allow_none=True)
    created_at = fields.String(required=True)
    finished_at = fields.String(required=True, allow_none=True)


class DeliveryList(ApiSchema):
    deliveries = fields.List(fields.Nested(Delivery), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class TestRequest(ApiSchema):
    type = StrictString(
        load_default=PING,
        validate=validate.OneOf((PING, *EVENT_TYPES)),
        metadata={"description": "`ping` (the default), or a type of the catalog: an example of its `data` is sent."},
    )


class TestResult(ApiSchema):
    delivery = fields.Nested(Delivery, required=True)


class AuditEvent(ApiSchema):
    id = fields.String(required=True)
    occurred_at = fields.String(required=True)
    actor = fields.Dict(required=True, metadata={"description": "`{kind, id, label}`: who acted."})
    action = fields.String(required=True)
    resource = fields.Dict(required=True, allow_none=True, metadata={"description": "`{type, id}`."})
    method = fields.String(required=True, allow_none=True)
    path = fields.String(required=True, allow_none=True)
    client_address = fields.String(required=True, allow_none=True)
    request_id = fields.String(required=True, allow_none=True)
    status = fields.Integer(required=True, allow_none=True)
    result = fields.String(required=True)


class AuditEventList(ApiSchema):
    events = fields.List(fields.Nested(AuditEvent), required=True)
    next_cursor = fields.String(required=True, allow_none=True)
