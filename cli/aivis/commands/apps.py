"""`aivis apps` (apps, their config and resources) and `aivis domains` (an app's domains)."""

from __future__ import annotations

import click

from aivis.context import Context, pass_context
from aivis.inputs import compact, json_object
from aivis.output import json_option, show

APP_COLUMNS = ("id", "slug", "name", "createdAt", "updatedAt")
APP_FIELDS = ("id", "slug", "name", "metadata", "appConfig.productId", "appConfig.config", "createdAt", "updatedAt")
DOMAIN_COLUMNS = ("id", "domain", "type", "scope", "origin", "createdAt")


@click.group()
def apps() -> None:
    """Apps: publishing units with domains, products, a config and routes."""


@apps.command("list")
@json_option
@pass_context
def apps_list(context: Context, as_json: bool) -> None:
    """List the organization's apps."""
    data = context.api().call("GET", "/api/v1/apps")
    show(data, as_json, rows=data, columns=APP_COLUMNS)


@apps.command("create")
@click.option("--name", required=True)
@click.option("--slug", help="Default: made from the name.")
@click.option("--metadata", help="A JSON object, or @file.")
@json_option
@pass_context
def apps_create(context: Context, name: str, slug: str | None, metadata: str | None, as_json: bool) -> None:
    """Create an app."""
    body = compact(name=name, slug=slug, metadata=json_object(metadata, "--metadata"))
    show(context.api().call("POST", "/api/v1/apps", body=body), as_json, fields=APP_FIELDS)


@apps.command("get")
@click.argument("app_id")
@json_option
@pass_context
def apps_get(context: Context, app_id: str, as_json: bool) -> None:
    """Show an app with its config and resources."""
    data = context.api().call("GET", f"/api/v1/apps/{app_id}")
    show(data, as_json, fields=(*APP_FIELDS, "resources"))


@apps.command("update")
@click.argument("app_id")
@click.option("--name")
@click.option("--slug")
@click.option("--metadata", help="A JSON object, or @file; replaces the metadata.")
@json_option
@pass_context
def apps_update(context: Context, app_id: str, name: str | None, slug: str | None, metadata: str | None,
                as_json: bool) -> None:  # fmt: skip
    """Change an app's name, slug or metadata."""
    body = compact(name=name, slug=slug, metadata=json_object(metadata, "--metadata"))
    show(context.api().call("PATCH", f"/api/v1/apps/{app_id}", body=body), as_json, fields=APP_COLUMNS)


@apps.command("config")
@click.argument("app_id")
@click.argument("config")
@json_option
@pass_context
def apps_config(context: Context, app_id: str, config: str, as_json: bool) -> None:
    """Replace an app's config with CONFIG, a JSON object or @file."""
    body = {"config": json_object(config, "CONFIG")}
    data = context.api().call("PATCH", f"/api/v1/apps/{app_id}/app-config", body=body)
    show(data, as_json, fields=("appId", "productId", "config", "updatedAt"))


@apps.command("resources")
@click.argument("app_id")
@json_option
@pass_context
def apps_resources(context: Context, app_id: str, as_json: bool) -> None:
    """List an app's resources (its products)."""
    data = context.api().call("GET", f"/api/v1/apps/{app_id}/resources")
    show(data, as_json, rows=data, columns=("id", "resourceType", "resourceId", "product.name", "createdAt"))


@apps.command("add-product")
@click.argument("app_id")
@click.argument("product_id")
@json_option
@pass_context
def apps_add_product(context: Context, app_id: str, product_id: str, as_json: bool) -> None:
    """Add a product to an app as a resource."""
    body = {"resourceId": product_id, "resourceType": "product"}
    data = context.api().call("POST", f"/api/v1/apps/{app_id}/resources", body=body)
    show(data, as_json, fields=("id", "appId", "resourceType", "resourceId", "createdAt"))


@click.group()
def domains() -> None:
    """Domains of apps."""


@domains.command("list")
@click.argument("app_id")
@json_option
@pass_context
def domains_list(context: Context, app_id: str, as_json: bool) -> None:
    """List an app's domains."""
    data = context.api().call("GET", f"/api/v1/apps/{app_id}/domains")
    show(data, as_json, rows=data, columns=DOMAIN_COLUMNS)


@domains.command("add")
@click.argument("app_id")
@click.argument("hostname")
@click.option("--type", "domain_type", type=click.Choice(["web", "metric", "redirect"]), help="Default: web.")
@click.option("--origin", help="Where the domain's traffic comes from.")
@json_option
@pass_context
def domains_add(context: Context, app_id: str, hostname: str, domain_type: str | None, origin: str | None,
                as_json: bool) -> None:  # fmt: skip
    """Add a domain (a lowercase hostname) to an app."""
    body = compact(domain=hostname, type=domain_type, origin=origin)
    data = context.api().call("POST", f"/api/v1/apps/{app_id}/domains", body=body)
    show(data, as_json, fields=DOMAIN_COLUMNS)


@domains.command("routing")
@click.argument("domain_id")
@json_option
@pass_context
def domains_routing(context: Context, domain_id: str, as_json: bool) -> None:
    """Show a domain's legacy routing config (deprecated; retired after 2026-12-15)."""
    data = context.api().call("GET", f"/api/v1/domain/{domain_id}/routing")
    show(data, as_json, fields=("publishStatus", "publishedAt", "publishedHash", "publishError", "config"))


def register(root: click.Group) -> None:
    root.add_command(apps)
    root.add_command(domains)
