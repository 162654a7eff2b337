"""Handlers of the events service: webhook endpoints, their deliveries, and the audit trail."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from libs.common.address_policy import url_problem
from libs.common.audit import SIGN_INS_SCOPE
from libs.common.db import Row, cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import Conflict, NotFound, ValidationFailed
from libs.common.schemas import load_body, load_data, load_json, load_query, path_id
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.events import queries
from services.events.samples import example_data
from services.events.schemas import (
    AuditListQuery,
    DeliveryListQuery,
    EndpointCreate,
    EndpointUpdate,
    TestRequest,
)
from services.events.settings import EventsSettings
from services.events.shapes import DELIVERY, ENDPOINT, ENDPOINT_WITH_SECRET
from services.events.signing import new_secret
from services.events.types import PING

ENDPOINT_CREATE = EndpointCreate()
ENDPOINT_UPDATE = EndpointUpdate()
DELIVERY_LIST_QUERY = DeliveryListQuery()
AUDIT_LIST_QUERY = AuditListQuery()
TEST_REQUEST = TestRequest()


def _check_url(request: web.Request, values: dict[str, Any]) -> None:
    if "url" not in values:
        return
    settings: EventsSettings = request.app[SETTINGS]
    problem = url_problem(values["url"], settings.webhook_allow_http, settings.webhook_allowed_networks)
    if problem is not None:
        raise ValidationFailed(details={"url": f"The URL {problem}."})


def _organization(request: web.Request) -> str:
    return caller_of(request).org.id


def _endpoint_or_404(row: Row | None) -> Row:
    if row is None:
        raise NotFound("webhook endpoint not found")
    return row


async def _owned_endpoint(request: web.Request, cur: Any) -> Row:
    endpoint_id = path_id(request, "endpointId", "webhook endpoint")
    return _endpoint_or_404(await queries.get_endpoint(cur, _organization(request), endpoint_id))


async def webhook_endpoints_create(request: web.Request) -> web.Response:
    """POST /api/v1/webhook-endpoints: a new endpoint and its signing secret (shown this once)."""
    values = await load_json(request, ENDPOINT_CREATE)
    _check_url(request, values)
    async with cursor(request.app[DB_POOL]) as cur:
        row = await queries.create_endpoint(cur, _organization(request), values, new_secret())
    return json_response(ENDPOINT_WITH_SECRET.of(row), status=201)


async def webhook_endpoints_list(request: web.Request) -> web.Response:
    """GET /api/v1/webhook-endpoints: the organization's endpoints, oldest first (few per organization)."""
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.list_endpoints(cur, _organization(request))
    return json_response({"endpoints": [ENDPOINT.of(row) for row in rows]})


async def webhook_endpoints_get(request: web.Request) -> web.Response:
    async with cursor(request.app[DB_POOL]) as cur:
        row = await _owned_endpoint(request, cur)
    return json_response(ENDPOINT.of(row))


async def webhook_endpoints_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/webhook-endpoints/{endpointId}: url, events, description, enabled."""
    endpoint_id = path_id(request, "endpointId", "webhook endpoint")
    values = await load_json(request, ENDPOINT_UPDATE)
    _check_url(request, values)
    async with cursor(request.app[DB_POOL]) as cur:
        row = await queries.update_endpoint(cur, _organization(request), endpoint_id, values)
    return json_response(ENDPOINT.of(_endpoint_or_404(row)))


async def webhook_endpoints_delete(request: web.Request) -> web.Response:
    endpoint_id = path_id(request, "endpointId", "webhook endpoint")
    async with transaction(request.app[DB_POOL]) as cur:
        row = await queries.delete_endpoint(cur, _organization(request), endpoint_id)
    return json_response(ENDPOINT.of(_endpoint_or_404(row)))


async def webhook_endpoints_rotate_secret(request: web.Request) -> web.Response:
    """POST .../rotate-secret: a new secret; the old one signs beside it for 24 hours."""
    endpoint_id = path_id(request, "endpointId", "webhook endpoint")
    async with cursor(request.app[DB_POOL]) as cur:
        row = await queries.rotate_secret(cur, _organization(request), endpoint_id, new_secret())
    return json_response(ENDPOINT_WITH_SECRET.of(_endpoint_or_404(row)))


async def webhook_endpoints_test(request: web.Request) -> web.Response:
    """POST .../test: queue a test event to this endpoint alone, whatever types it receives: a
    `ping` (no body), or an example of the catalog type asked for; answers the delivery (202)."""
    raw = await request.read()
    values = load_body(raw, request.content_type, TEST_REQUEST) if raw else load_data(TEST_REQUEST, {})
    event_type: str = values["type"]
    organization_id = _organization(request)
    # Made before the transaction: the first example makes every type's.
    example = None if event_type == PING else example_data(event_type)
    async with transaction(request.app[DB_POOL]) as cur:
        endpoint = await _owned_endpoint(request, cur)
        if not endpoint["enabled"]:
            raise Conflict("the webhook endpoint is disabled: enable it first")
        data = {"endpointId": str(endpoint["id"])} if example is None else example
        event = {
            "id": str(uuid.uuid4()),
            "type": event_type,
            "occurredAt": datetime.now(UTC).isoformat(),
            "organizationId": organization_id,
            "data": data,
        }
        ids = await queries.record_event(cur, event, f"test:{event['id']}", only_endpoint=str(endpoint["id"]))
        delivery = await queries.get_delivery(cur, str(endpoint["id"]), ids[0])
    assert delivery is not None
    return json_response({"delivery": DELIVERY.of(delivery)}, status=202)


async def webhook_deliveries_list(request: web.Request) -> web.Response:
    """GET .../deliveries: newest first, each with its attempts; cursor-paginated."""
    query = load_query(request, DELIVERY_LIST_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        endpoint = await _owned_endpoint(request, cur)
        page = await queries.list_deliveries(cur, str(endpoint["id"]), query)
    return json_response(page)


async def webhook_deliveries_retry(request: web.Request) -> web.Response:
    """POST .../deliveries/{deliveryId}/retry: due now, whatever its state."""
    delivery_id = path_id(request, "deliveryId", "delivery")
    async with transaction(request.app[DB_POOL]) as cur:
        endpoint = await _owned_endpoint(request, cur)
        row = await queries.retry_delivery(cur, str(endpoint["id"]), delivery_id)
    if row is None:
        raise NotFound("delivery not found")
    return json_response(DELIVERY.of(row), status=202)


async def audit_events_list(request: web.Request) -> web.Response:
    """GET /api/v1/audit-events: the organization's audit trail, newest first; cursor-paginated."""
    query = load_query(request, AUDIT_LIST_QUERY)
    settings: EventsSettings = request.app[SETTINGS]
    async with cursor(request.app[DB_POOL]) as cur:
        page = await queries.list_audit_events(
            cur,
            _organization(request),
            query,
            settings.audit_retention_days,
            with_sign_ins=SIGN_INS_SCOPE in caller_of(request).scopes,
        )
    return json_response(page)
