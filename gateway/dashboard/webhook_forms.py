"""Webhook endpoints managed in the dashboard: create one, change its URL, events, description and
state, rotate its signing secret, send it a test event, and retry a delivery.

Each form calls one API route for the signed-in person (`webhooks:write`, checked before a form is
shown and again by the route); what the API refuses is shown beside the field it names
(gateway/dashboard/forms.py). A new secret (on create and on rotation) is kept in the session for
the next page, which shows it once.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp_session import get_session

from gateway.dashboard import api
from gateway.dashboard.forms import Field, Form, field_errors, refused, show, text
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import flash, render
from gateway.dashboard.session import Membership
from libs.common.errors import ApiError
from services.events.catalog import EVENTS

NEW_SECRET = "webhook_secret"
DELIVERIES_PAGE = 25
EVENT_OPTIONS = (("*", "Every event type, those added later too"), *((event.type, event.summary) for event in EVENTS))
FIELDS = (
    Field(
        "url",
        "Endpoint URL",
        kind="url",
        required=True,
        max_length=2048,
        hint="An https URL of yours that answers 2xx; deliveries are signed (Standard Webhooks).",
    ),
    Field("description", "Description (optional)", max_length=500),
    Field("events", "Events to send", kind="checkboxes", options=EVENT_OPTIONS),
)
STATE = Field("enabled", "State", kind="select", options=(("true", "Enabled"), ("false", "Disabled")))


def _list_path(membership: Membership) -> str:
    return f"/{membership.slug}/settings/webhooks"


def _values(posted: Any) -> dict[str, Any]:
    return {
        "url": text(posted, "url"),
        "description": text(posted, "description"),
        "events": [str(value) for value in posted.getall("events", [])],
    }


async def _keep_secret(request: web.Request, endpoint: dict[str, Any]) -> None:
    session = await get_session(request)
    session[NEW_SECRET] = {"endpoint": endpoint["id"], "secret": endpoint["secret"]}


async def endpoint_new(request: web.Request) -> web.Response:
    """GET/POST …/settings/webhooks/new: `POST /webhook-endpoints`; its secret is shown next, once."""
    _, membership = await member(request)
    await api.require(request, "webhook_endpoints_create")
    form = Form(
        "New webhook endpoint",
        "Create endpoint",
        _list_path(membership),
        "Webhooks",
        FIELDS,
        intro="Each event is sent as a signed POST; failed deliveries are retried with backoff.",
    )
    if request.method == "GET":
        return await show(request, membership, form, {"events": ["*"]})
    values = _values(await request.post())
    body = {"url": values["url"], "events": values["events"], "description": values["description"] or None}
    try:
        created = await api.call(request, "webhook_endpoints_create", json=body)
    except ApiError as error:
        return await refused(request, membership, form, values, error)
    await _keep_secret(request, created)
    await flash(request, "The endpoint is created. Copy its signing secret now: it is not shown again.")
    raise web.HTTPSeeOther(f"{_list_path(membership)}/{created['id']}")


async def endpoint_page(request: web.Request) -> web.Response:
    """GET/POST …/settings/webhooks/{endpointId}: the endpoint, its deliveries (newest first, next
    page by cursor) and, for `webhooks:write`, its form (POST: `PATCH /webhook-endpoints/{id}`)."""
    _, membership = await member(request)
    await api.require(request, "webhook_endpoints_get")
    endpoint_id = request.match_info["endpoint"]
    endpoint = await api.call(request, "webhook_endpoints_get", endpointId=endpoint_id)
    values: dict[str, Any] = {**endpoint, "enabled": "true" if endpoint["enabled"] else "false"}
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        await api.require(request, "webhook_endpoints_update")
        posted = await request.post()
        values = {**_values(posted), "enabled": text(posted, "enabled")}
        body = {
            "url": values["url"],
            "events": values["events"],
            "description": values["description"] or None,
            "enabled": values["enabled"] == "true",
        }
        try:
            await api.call(request, "webhook_endpoints_update", endpointId=endpoint_id, json=body)
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            errors, status = field_errors(error, [*(item.name for item in FIELDS), "enabled"]), error.status
        else:
            await flash(request, "The endpoint is saved.")
            raise web.HTTPSeeOther(request.path)
    query: api.Query = {"limit": DELIVERIES_PAGE, "cursor": request.query.get("cursor")}
    deliveries = await api.call(request, "webhook_deliveries_list", endpointId=endpoint_id, query=query)
    session = await get_session(request)
    kept = session.pop(NEW_SECRET, None)
    context = {
        "membership": membership,
        "endpoint": endpoint,
        "deliveries": deliveries["deliveries"],
        "next_cursor": deliveries["nextCursor"],
        "secret": kept["secret"] if kept and kept.get("endpoint") == endpoint_id else None,
        "fields": (*FIELDS, STATE),
        "values": values,
        "errors": errors,
        "can_edit": await api.permits(request, "webhook_endpoints_update"),
    }
    return await render(request, "webhook.html", context, status=status)


async def rotate_secret(request: web.Request) -> web.Response:
    """POST …/{endpointId}/rotate-secret: a new secret, shown once; the old one signs for 24 hours more."""
    _, membership = await member(request)
    rotated = await api.call(request, "webhook_endpoints_rotate_secret", endpointId=request.match_info["endpoint"])
    await _keep_secret(request, rotated)
    await flash(request, "A new signing secret: copy it now. The previous one keeps signing for 24 hours.")
    raise web.HTTPSeeOther(f"{_list_path(membership)}/{rotated['id']}")


async def send_test(request: web.Request) -> web.Response:
    """POST …/{endpointId}/test: a `ping` event to this endpoint alone."""
    _, membership = await member(request)
    endpoint_id = request.match_info["endpoint"]
    await api.call(request, "webhook_endpoints_test", endpointId=endpoint_id)
    await flash(request, "A test event (ping) is on its way: its delivery is listed below.")
    raise web.HTTPSeeOther(f"{_list_path(membership)}/{endpoint_id}#deliveries-heading")


async def retry_delivery(request: web.Request) -> web.Response:
    """POST …/{endpointId}/deliveries/{deliveryId}/retry: the delivery is sent again now."""
    _, membership = await member(request)
    endpoint_id = request.match_info["endpoint"]
    await api.call(
        request, "webhook_deliveries_retry", endpointId=endpoint_id, deliveryId=request.match_info["delivery"]
    )
    await flash(request, "The delivery is sent again now.")
    raise web.HTTPSeeOther(f"{_list_path(membership)}/{endpoint_id}#deliveries-heading")


def add_routes(router: web.UrlDispatcher) -> None:
    """Registered before audit.py's list page; `new` is no endpoint id."""
    base = f"/{ORG}/settings/webhooks"
    router.add_get(base + "/new", endpoint_new, name="dashboard.webhook_new")
    router.add_post(base + "/new", endpoint_new, name="dashboard.webhook_new_submit")
    router.add_get(base + "/{endpoint}", endpoint_page, name="dashboard.webhook")
    router.add_post(base + "/{endpoint}", endpoint_page, name="dashboard.webhook_save")
    router.add_post(base + "/{endpoint}/rotate-secret", rotate_secret, name="dashboard.webhook_rotate")
    router.add_post(base + "/{endpoint}/test", send_test, name="dashboard.webhook_test")
    router.add_post(base + "/{endpoint}/deliveries/{delivery}/retry", retry_delivery, name="dashboard.webhook_retry")
