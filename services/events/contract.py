"""The events service's public routes: webhook endpoints, their deliveries, and the audit trail.

Declarations only (libs/contract/route.py).
"""

from __future__ import annotations

from libs.contract.route import Route
from services.events import schemas as s

PART = "events"
BASE = "/api/v1/webhook-endpoints"
ONE = BASE + "/{endpointId}"

ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        BASE,
        PART,
        "webhooks:write",
        "webhook_endpoints_create",
        "Create a webhook endpoint; its signing secret is shown once",
        body=s.EndpointCreate,
        response=s.EndpointWithSecret,
        status=201,
        tag="Webhooks",
    ),
    Route(
        "GET",
        BASE,
        PART,
        "webhooks:read",
        "webhook_endpoints_list",
        "List the organization's webhook endpoints",
        response=s.EndpointList,
        tag="Webhooks",
    ),
    Route(
        "GET",
        ONE,
        PART,
        "webhooks:read",
        "webhook_endpoints_get",
        "One webhook endpoint",
        response=s.Endpoint,
        tag="Webhooks",
    ),
    Route(
        "PATCH",
        ONE,
        PART,
        "webhooks:write",
        "webhook_endpoints_update",
        "Change a webhook endpoint's URL, events, description or enabled state",
        body=s.EndpointUpdate,
        response=s.Endpoint,
        tag="Webhooks",
    ),
    Route(
        "DELETE",
        ONE,
        PART,
        "webhooks:write",
        "webhook_endpoints_delete",
        "Delete a webhook endpoint; nothing more is sent to it",
        response=s.Endpoint,
        tag="Webhooks",
    ),
    Route(
        "POST",
        ONE + "/rotate-secret",
        PART,
        "webhooks:write",
        "webhook_endpoints_rotate_secret",
        "Give an endpoint a new signing secret; the old one keeps signing beside it for 24 hours",
        response=s.EndpointWithSecret,
        tag="Webhooks",
    ),
    Route(
        "POST",
        ONE + "/test",
        PART,
        "webhooks:write",
        "webhook_endpoints_test",
        "Send a test event to the endpoint: a `ping`, or an example of the event type asked for",
        body=s.TestRequest,
        body_optional=True,
        response=s.TestResult,
        status=202,
        tag="Webhooks",
    ),
    Route(
        "GET",
        ONE + "/deliveries",
        PART,
        "webhooks:read",
        "webhook_deliveries_list",
        "An endpoint's deliveries, newest first, with each attempt",
        query=s.DeliveryListQuery,
        response=s.DeliveryList,
        tag="Webhooks",
    ),
    Route(
        "POST",
        ONE + "/deliveries/{deliveryId}/retry",
        PART,
        "webhooks:write",
        "webhook_deliveries_retry",
        "Send a delivery again now",
        response=s.Delivery,
        status=202,
        tag="Webhooks",
    ),
    Route(
        "GET",
        "/api/v1/audit-events",
        PART,
        "logs:read",
        "audit_events_list",
        "The organization's audit trail, newest first",
        query=s.AuditListQuery,
        response=s.AuditEventList,
        tag="Audit",
    ),
)
