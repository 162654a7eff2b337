"""`aivis competitors`: a product's competitors, whose mentions and cited pages the answers' analysis counts."""

from __future__ import annotations

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option
from aivis.paging import cursor_option, limit_option, print_page
from aivis.resolve import product_option

COMPETITORS = Endpoint("GET", "/api/v1/products/{productId}/competitors")
COMPETITORS_CREATE = Endpoint("POST", "/api/v1/products/{productId}/competitors")
COMPETITOR_UPDATE = Endpoint("PATCH", "/api/v1/competitors/{competitorId}")
COMPETITOR_DELETE = Endpoint("DELETE", "/api/v1/competitors/{competitorId}")
COMPETITOR_FIELDS = ("id", "name", "aliases", "domains", "competitorSetVersion", "createdAt", "updatedAt")


@click.group()
def competitors() -> None:
    """A product's competitors, looked for in AI answers (scopes products:read, products:write)."""


@competitors.command("list")
@product_option()
@limit_option
@cursor_option
@json_option
@pass_context
def competitors_list(context: Context, product_id: str, limit: int | None, cursor: str | None, as_json: bool) -> None:
    """List the product's competitors, newest first."""
    data = context.api().call(COMPETITORS, productId=product_id, query=compact(limit=limit, cursor=cursor))
    columns = ("id", "name", "aliases", "domains")
    print_page(context.out, data["items"], columns, as_json, data["nextCursor"], "competitor")


@competitors.command("add")
@product_option()
@click.option("--name", required=True)
@click.option("--alias", "aliases", multiple=True, help="Another name it goes by (repeat).")
@click.option("--domain", "domains", multiple=True, help="A hostname it owns (repeat).")
@json_option
@pass_context
def competitors_add(
    context: Context, product_id: str, name: str, aliases: tuple[str, ...], domains: tuple[str, ...], as_json: bool
) -> None:
    """Add a competitor of the product."""
    body = {"name": name, "aliases": list(aliases), "domains": list(domains)}
    data = context.api().call(COMPETITORS_CREATE, productId=product_id, body=body)
    context.out.record(data, COMPETITOR_FIELDS, as_json)


@competitors.command("update")
@click.argument("competitor_id")
@click.option("--name")
@click.option("--alias", "aliases", multiple=True, help="Another name it goes by (repeat; replaces the list).")
@click.option("--domain", "domains", multiple=True, help="A hostname it owns (repeat; replaces the list).")
@json_option
@pass_context
def competitors_update(
    context: Context,
    competitor_id: str,
    name: str | None,
    aliases: tuple[str, ...],
    domains: tuple[str, ...],
    as_json: bool,
) -> None:
    """Change a competitor's name, aliases or domains."""
    body = compact(name=name, aliases=list(aliases) or None, domains=list(domains) or None)
    data = context.api().call(COMPETITOR_UPDATE, competitorId=competitor_id, body=body)
    context.out.record(data, COMPETITOR_FIELDS, as_json)


@competitors.command("remove")
@click.argument("competitor_id")
@json_option
@pass_context
def competitors_remove(context: Context, competitor_id: str, as_json: bool) -> None:
    """Delete a competitor; its name is free again."""
    data = context.api().call(COMPETITOR_DELETE, competitorId=competitor_id)
    context.out.record(data, COMPETITOR_FIELDS, as_json)
