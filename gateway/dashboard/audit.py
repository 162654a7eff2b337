"""/{orgSlug}/settings/audit: the organization's audit trail; /{orgSlug}/settings/webhooks: its
webhook endpoints, each with its recent deliveries (read-only).

Both show what the API answers the signed-in person (gateway/dashboard/api.py): the audit trail is
`GET /api/v1/audit-events` (logs:read), newest first, filtered by action, actor, resource type and
a time range, older events a page at a time by its cursor; the webhooks page is
`GET /api/v1/webhook-endpoints` and each endpoint's `.../deliveries` (webhooks:read). A role
without the scope sees no link to the page and gets the API's 403 when it opens it anyway.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from gateway.dashboard import api
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import render
from libs.common.errors import ApiError

AUDIT_PAGE = 25
RECENT_DELIVERIES = 5
# The filters a page keeps in its address, under the API's own names.
AUDIT_FILTERS = ("action", "actor", "resourceType", "since", "until")
MAX_FILTER_LENGTH = 320


def _moment(text: str, label: str) -> str:
    """A time from the form's datetime-local field (read as UTC) or a full ISO 8601 one, as the
    API's aware ISO 8601; anything else is refused with a message naming the field."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{label} must be a date and time, such as 2026-01-31T09:30.") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def _field_messages(error: ApiError) -> str:
    details = error.details if isinstance(error.details, dict) else {}
    return " ".join([error.message, *(str(message) for message in details.values())])


async def audit_trail(request: web.Request) -> web.Response:
    """GET …/settings/audit[?action=&actor=&resourceType=&since=&until=&cursor=]: a page of the
    trail, newest first; a filter the API refuses is said above the table (422), not a crash."""
    _, membership = await member(request)
    await api.require(request, "audit_events_list")
    filters = {name: request.query.get(name, "").strip()[:MAX_FILTER_LENGTH] for name in AUDIT_FILTERS}
    page: dict[str, Any] = {"events": [], "nextCursor": None}
    error = None
    try:
        query: dict[str, str | int] = {**filters, "limit": AUDIT_PAGE, "cursor": request.query.get("cursor", "")}
        for name, label in (("since", "From"), ("until", "Until")):
            if filters[name]:
                query[name] = _moment(filters[name], label)
        page = await api.call(request, "audit_events_list", query=query)
    except ValueError as refused:
        error = str(refused)
    except ApiError as failure:
        if failure.status != 422:  # a filter the API refuses, a stale cursor
            raise
        error = _field_messages(failure)
    context = {
        "membership": membership,
        "events": page["events"],
        "next_cursor": page["nextCursor"],
        "filters": filters,
        "filtered": any(filters.values()),
        "error": error,
    }
    return await render(request, "audit.html", context, status=422 if error else 200)


async def webhooks(request: web.Request) -> web.Response:
    """GET …/settings/webhooks: every endpoint (few per organization), each with its latest deliveries."""
    _, membership = await member(request)
    await api.require(request, "webhook_endpoints_list")
    endpoints = (await api.call(request, "webhook_endpoints_list"))["endpoints"]
    pages = await asyncio.gather(
        *(
            api.call(request, "webhook_deliveries_list", endpointId=endpoint["id"], query={"limit": RECENT_DELIVERIES})
            for endpoint in endpoints
        )
    )
    listed = [{**endpoint, "deliveries": page["deliveries"]} for endpoint, page in zip(endpoints, pages, strict=True)]
    context = {
        "membership": membership,
        "endpoints": listed,
        "can_edit": await api.permits(request, "webhook_endpoints_create"),
    }
    return await render(request, "webhooks.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get(f"/{ORG}/settings/audit", audit_trail, name="dashboard.audit")
    router.add_get(f"/{ORG}/settings/webhooks", webhooks, name="dashboard.webhooks")
