"""`aivis audit` (the organization's audit trail) and `aivis webhooks` (endpoints, deliveries)."""

from __future__ import annotations

import click

from aivis.api import Endpoint
from aivis.confirm import confirm, yes_option
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option, plural, short_id, when
from aivis.paging import cursor_option, print_page
from aivis.resolve import DELIVERIES, ENDPOINTS, delivery_argument, endpoint_argument

AUDIT_EVENTS = Endpoint("GET", "/api/v1/audit-events")
ENDPOINT_CREATE = Endpoint("POST", "/api/v1/webhook-endpoints")
ENDPOINT = Endpoint("GET", "/api/v1/webhook-endpoints/{endpointId}")
ENDPOINT_UPDATE = Endpoint("PATCH", "/api/v1/webhook-endpoints/{endpointId}")
ENDPOINT_DELETE = Endpoint("DELETE", "/api/v1/webhook-endpoints/{endpointId}")
ROTATE = Endpoint("POST", "/api/v1/webhook-endpoints/{endpointId}/rotate-secret")
TEST = Endpoint("POST", "/api/v1/webhook-endpoints/{endpointId}/test")
RETRY = Endpoint("POST", "/api/v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry")

AUDIT_COLUMNS = (
    when("occurredAt"),
    "actor.kind",
    "actor.label",
    "action",
    "resource.type",
    "resource.id",
    "status",
    "clientAddress",
)
ENDPOINT_COLUMNS = (short_id(), "url", "events", "enabled", "disabledReason")
ENDPOINT_FIELDS = (
    "id",
    "url",
    "events",
    "description",
    "enabled",
    "disabledReason",
    "failingSince",
    "createdAt",
    "updatedAt",
    "secret",
)
DELIVERY_COLUMNS = (short_id(), "eventType", "status", when("createdAt"), when("nextAttemptAt"))


@click.group()
def audit() -> None:
    """The organization's audit trail: changes, refused credentials, sign-ins (scope logs:read)."""


@audit.command("list")
@click.option("--actor", help="A user id, an API key's prefix, or an email.")
@click.option("--action", help="An action, as listed (`app.created`, `webhook_endpoint.deleted`, `session.sign_in`).")
@click.option("--resource-type")
@click.option("--resource-id")
@click.option("--since", help="Only events at or after this time (ISO 8601, with a zone).")
@click.option("--until", help="Only events before this time (ISO 8601, with a zone).")
@click.option("--limit", type=int, help="At most this many (1-200, default 50).")
@cursor_option
@json_option
@pass_context
def audit_list(
    context: Context,
    actor: str | None,
    action: str | None,
    resource_type: str | None,
    resource_id: str | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List audit events, newest first."""
    query = compact(
        actor=actor,
        action=action,
        resourceType=resource_type,
        resourceId=resource_id,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )
    data = context.api().call(AUDIT_EVENTS, query=query)
    print_page(context.out, data["events"], AUDIT_COLUMNS, as_json, data["nextCursor"], "event")


@click.group()
def webhooks() -> None:
    """Webhook endpoints and their deliveries (scopes webhooks:read, webhooks:write)."""


@webhooks.command("list")
@json_option
@pass_context
def webhooks_list(context: Context, as_json: bool) -> None:
    """List the organization's webhook endpoints."""
    data = context.api().call(ENDPOINTS)
    context.out.items(data["endpoints"], ENDPOINT_COLUMNS, as_json, note=plural(len(data["endpoints"]), "endpoint"))


@webhooks.command("create")
@click.argument("url")
@click.option("--event", "events", multiple=True, help="An event type to receive (repeat); default: every type.")
@click.option("--description")
@json_option
@pass_context
def webhooks_create(
    context: Context, url: str, events: tuple[str, ...], description: str | None, as_json: bool
) -> None:
    """Create an endpoint; its signing secret is printed this once."""
    body = compact(url=url, events=list(events) or ["*"], description=description)
    context.out.record(context.api().call(ENDPOINT_CREATE, body=body), ENDPOINT_FIELDS, as_json)


@webhooks.command("get")
@endpoint_argument
@json_option
@pass_context
def webhooks_get(context: Context, endpoint_id: str, as_json: bool) -> None:
    """Show one endpoint."""
    context.out.record(context.api().call(ENDPOINT, endpointId=endpoint_id), ENDPOINT_FIELDS[:-1], as_json)


@webhooks.command("update")
@endpoint_argument
@click.option("--url")
@click.option("--event", "events", multiple=True, help="The event types to receive (repeat; replaces the list).")
@click.option("--description")
@click.option("--enable/--disable", "enabled", default=None)
@json_option
@pass_context
def webhooks_update(
    context: Context,
    endpoint_id: str,
    url: str | None,
    events: tuple[str, ...],
    description: str | None,
    enabled: bool | None,
    as_json: bool,
) -> None:
    """Change an endpoint's URL, events, description or state."""
    body = compact(url=url, events=list(events) or None, description=description, enabled=enabled)
    if not body:
        raise click.UsageError("nothing to change: give --url, --event, --description, --enable or --disable")
    data = context.api().call(ENDPOINT_UPDATE, endpointId=endpoint_id, body=body)
    context.out.record(data, ENDPOINT_FIELDS[:-1], as_json)


@webhooks.command("delete")
@endpoint_argument
@yes_option
@json_option
@pass_context
def webhooks_delete(context: Context, endpoint_id: str, yes: bool, as_json: bool) -> None:
    """Delete an endpoint: nothing more is sent to it."""
    confirm(context, yes, f"Delete the webhook endpoint {endpoint_id}? Nothing more will be sent to it.")
    data = context.api().call(ENDPOINT_DELETE, endpointId=endpoint_id)
    context.out.record(data, ENDPOINT_FIELDS[:-1], as_json)


@webhooks.command("rotate-secret")
@endpoint_argument
@json_option
@pass_context
def webhooks_rotate_secret(context: Context, endpoint_id: str, as_json: bool) -> None:
    """A new signing secret (printed this once); the old one signs beside it for 24 hours."""
    context.out.record(context.api().call(ROTATE, endpointId=endpoint_id), ENDPOINT_FIELDS, as_json)


@webhooks.command("test")
@endpoint_argument
@json_option
@pass_context
def webhooks_test(context: Context, endpoint_id: str, as_json: bool) -> None:
    """Send a `ping` event to the endpoint."""
    data = context.api().call(TEST, endpointId=endpoint_id)
    context.out.record(data["delivery"], ("id", "eventType", "status"), as_json)


@webhooks.command("deliveries")
@endpoint_argument
@click.option("--status", type=click.Choice(["pending", "succeeded", "failed"]))
@click.option("--limit", type=int, help="At most this many (1-200, default 50).")
@cursor_option
@json_option
@pass_context
def webhooks_deliveries(
    context: Context, endpoint_id: str, status: str | None, limit: int | None, cursor: str | None, as_json: bool
) -> None:
    """List an endpoint's deliveries, newest first."""
    data = context.api().call(
        DELIVERIES, endpointId=endpoint_id, query=compact(status=status, limit=limit, cursor=cursor)
    )
    print_page(context.out, data["deliveries"], DELIVERY_COLUMNS, as_json, data["nextCursor"], "delivery", "deliveries")


@webhooks.command("retry")
@endpoint_argument
@delivery_argument
@json_option
@pass_context
def webhooks_retry(context: Context, endpoint_id: str, delivery_id: str, as_json: bool) -> None:
    """Send a delivery again now."""
    data = context.api().call(RETRY, endpointId=endpoint_id, deliveryId=delivery_id)
    context.out.record(data, ("id", "eventType", "status"), as_json)


def register(root: click.Group) -> None:
    root.add_command(audit)
    root.add_command(webhooks)
