"""What a person may type for a resource: its full id, the short id a table showed (a prefix
naming one resource), or, for a product, its slug and, for a domain, its hostname.

A resource inside another (an app's domain, an endpoint's delivery) is looked up among its
parent's, named by the command's earlier argument (already resolved to a full id)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import click

from aivis.api import Endpoint
from aivis.context import Context
from aivis.errors import EXIT_NOT_FOUND, EXIT_VALIDATION, CliError
from aivis.output import plural

# The listings a short id or a slug is looked up in.
PRODUCTS_LIST = Endpoint("GET", "/api/v1/products")
APPS_LIST = Endpoint("GET", "/api/v1/apps")
RUNS = Endpoint("GET", "/api/v1/agent-simulation/runs")
RUNS_PAGE = 200  # the most one list call answers
APP_DOMAINS = Endpoint("GET", "/api/v1/apps/{appId}/domains")
APP_RESOURCES = Endpoint("GET", "/api/v1/apps/{appId}/resources")
ROUTES_LIST = Endpoint("GET", "/api/v1/apps/{appId}/routes")
ROUTES_PAGE = 500
ENDPOINTS = Endpoint("GET", "/api/v1/webhook-endpoints")
DELIVERIES = Endpoint("GET", "/api/v1/webhook-endpoints/{endpointId}/deliveries")
DELIVERIES_PAGE = 200

F = TypeVar("F", bound=Callable[..., Any])
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def is_full_id(text: str) -> bool:
    return _UUID.fullmatch(text) is not None


def by_prefix(items: Iterable[dict[str, Any]], prefix: str, what: str, whats: str | None = None) -> str:
    """The id of the one item whose id starts with `prefix`."""
    matches = [str(item["id"]) for item in items if str(item["id"]).startswith(prefix.lower())]
    if not matches:
        raise CliError(f"no {what} {prefix!r}", EXIT_NOT_FOUND)
    if len(matches) > 1:
        named = plural(len(matches), what, whats)
        raise CliError(f"{prefix!r} names {named}: give more of the id", EXIT_VALIDATION)
    return matches[0]


def resolver(
    resolve: Callable[[Context, str], str],
) -> Callable[[click.Context, click.Parameter, str | None], str | None]:
    """A click callback resolving an option's or argument's value (None stays None)."""

    def callback(ctx: click.Context, _: click.Parameter, value: str | None) -> str | None:
        if value is None or is_full_id(value):
            return value
        context = ctx.find_object(Context)
        assert context is not None  # every command runs under the `aivis` group
        return resolve(context, value)

    return callback


def child_resolver(
    parent: str, resolve: Callable[[Context, str, str], str]
) -> Callable[[click.Context, click.Parameter, str], str]:
    """A click callback resolving an argument among the resources of the one `parent` names."""

    def callback(ctx: click.Context, _: click.Parameter, value: str) -> str:
        if is_full_id(value):
            return value
        context = ctx.find_object(Context)
        assert context is not None
        return resolve(context, str(ctx.params[parent]), value)

    return callback


def product(context: Context, value: str) -> str:
    products: list[dict[str, Any]] = context.api().call(PRODUCTS_LIST)
    for item in products:
        if item["slug"] == value:
            return str(item["id"])
    return by_prefix(products, value, "product")


def app(context: Context, value: str) -> str:
    return by_prefix(context.api().call(APPS_LIST), value, "app")


def run(context: Context, value: str) -> str:
    return by_prefix(every_run(context), value, "run")


def every_run(context: Context) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        page = context.api().call(RUNS, query={"limit": RUNS_PAGE, "offset": offset})
        yield from page["runs"]
        offset += len(page["runs"])
        if not page["runs"] or offset >= page["total"]:
            return


def app_domain(context: Context, app_id: str, text: str) -> str:
    """The id of the app's domain named by its hostname or a prefix of its id."""
    listed: list[dict[str, Any]] = context.api().call(APP_DOMAINS, appId=app_id)
    for item in listed:
        if item["domain"] == text.lower():
            return str(item["id"])
    return by_prefix(listed, text, "domain")


def app_resource(context: Context, app_id: str, text: str) -> str:
    return by_prefix(context.api().call(APP_RESOURCES, appId=app_id), text, "resource")


def route(context: Context, app_id: str, text: str) -> str:
    return by_prefix(paged(context, ROUTES_LIST, "routes", ROUTES_PAGE, appId=app_id), text, "route")


def webhook_endpoint(context: Context, text: str) -> str:
    return by_prefix(context.api().call(ENDPOINTS)["endpoints"], text, "webhook endpoint")


def delivery(context: Context, endpoint_id: str, text: str) -> str:
    deliveries = paged(context, DELIVERIES, "deliveries", DELIVERIES_PAGE, endpointId=endpoint_id)
    return by_prefix(deliveries, text, "delivery", "deliveries")


def paged(context: Context, endpoint: Endpoint, key: str, limit: int, **path: str) -> Iterator[dict[str, Any]]:
    """Every item of a keyset-paginated list, a page at a time."""
    cursor: str | None = None
    while True:
        query: dict[str, Any] = {"limit": limit, **({"cursor": cursor} if cursor else {})}
        page = context.api().call(endpoint, query=query, **path)
        yield from page[key]
        cursor = page["nextCursor"]
        if not cursor:
            return


def product_option(required: bool = True, help: str = "The product's slug or id.") -> Callable[[F], F]:
    return click.option("--product", "product_id", required=required, callback=resolver(product), help=help)


product_argument = click.argument("product_id", callback=resolver(product))
app_argument = click.argument("app_id", callback=resolver(app))
domain_argument = click.argument("domain_id", metavar="DOMAIN", callback=child_resolver("app_id", app_domain))
resource_argument = click.argument("resource_id", callback=child_resolver("app_id", app_resource))
route_argument = click.argument("route_id", callback=child_resolver("app_id", route))
endpoint_argument = click.argument("endpoint_id", callback=resolver(webhook_endpoint))
delivery_argument = click.argument("delivery_id", callback=child_resolver("endpoint_id", delivery))
