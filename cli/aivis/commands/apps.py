"""`aivis apps` (apps, their config and resources) and `aivis domains` (an app's domains)."""

from __future__ import annotations

import click

from aivis.api import Endpoint
from aivis.confirm import confirm, yes_option
from aivis.context import Context, pass_context
from aivis.errors import EXIT_NOT_VERIFIED, CliError
from aivis.inputs import compact, json_object
from aivis.output import json_option, plural, short_id, when
from aivis.paging import cursor_option
from aivis.resolve import (
    APP_DOMAINS,
    APP_RESOURCES,
    APPS_LIST,
    app_argument,
    domain_argument,
    is_full_id,
    product_argument,
    resource_argument,
)

APPS_CREATE = Endpoint("POST", "/api/v1/apps")
APP = Endpoint("GET", "/api/v1/apps/{appId}")
APP_UPDATE = Endpoint("PATCH", "/api/v1/apps/{appId}")
APP_CONFIG_UPDATE = Endpoint("PATCH", "/api/v1/apps/{appId}/app-config")
APP_RESOURCES_CREATE = Endpoint("POST", "/api/v1/apps/{appId}/resources")
APP_DOMAINS_CREATE = Endpoint("POST", "/api/v1/apps/{appId}/domains")
APP_DELETE = Endpoint("DELETE", "/api/v1/apps/{appId}")
APP_RESTORE = Endpoint("POST", "/api/v1/apps/{appId}/restore")
APPS_DELETED = Endpoint("GET", "/api/v1/deleted-apps")
APP_RESOURCE_DELETE = Endpoint("DELETE", "/api/v1/apps/{appId}/resources/{appResourceId}")
APP_DOMAIN_DELETE = Endpoint("DELETE", "/api/v1/apps/{appId}/domains/{domainId}")
APP_DOMAIN_VERIFY = Endpoint("POST", "/api/v1/apps/{appId}/domains/{domainId}/verify")
LEGACY_ROUTING = Endpoint("GET", "/api/v1/domain/{id}/routing")
APP_LLMS_TXT = Endpoint("GET", "/api/v1/apps/{appId}/llms.txt")
APP_LLMS_FULL_TXT = Endpoint("GET", "/api/v1/apps/{appId}/llms-full.txt")

APP_COLUMNS = (short_id(), "slug", "name", when("updatedAt"))
APP_FIELDS = ("id", "slug", "name", "metadata", "appConfig.productId", "appConfig.config", "createdAt", "updatedAt")
DOMAIN_COLUMNS = (short_id(), "domain", "type", "verified", when("createdAt"))
DOMAIN_FIELDS = ("id", "domain", "type", "scope", "origin", "createdAt", "verified", "verification", "expiresAt")
VERIFY_FIELDS = (
    "id",
    "domain",
    "verified",
    "verifiedAt",
    "verification",
    "verificationError.code",
    "verificationError.message",
    "expiresAt",
    "releasedAt",
)
RESOURCE_FIELDS = ("id", "appId", "resourceType", "resourceId", "createdAt")


@click.group()
def apps() -> None:
    """Apps: publishing units with domains, products, a config and routes.

    An app is named by its id or the short id `aivis apps list` shows.
    """


@apps.command("list")
@json_option
@pass_context
def apps_list(context: Context, as_json: bool) -> None:
    """List the organization's apps."""
    data = context.api().call(APPS_LIST)
    context.out.items(data, APP_COLUMNS, as_json, total=len(data))


@apps.command("create")
@click.option("--name", required=True)
@click.option("--slug", help="Default: made from the name.")
@click.option("--metadata", help="A JSON object, or @file.")
@json_option
@pass_context
def apps_create(context: Context, name: str, slug: str | None, metadata: str | None, as_json: bool) -> None:
    """Create an app."""
    body = compact(name=name, slug=slug, metadata=json_object(metadata, "--metadata"))
    context.out.record(context.api().call(APPS_CREATE, body=body), APP_FIELDS, as_json)


@apps.command("get")
@app_argument
@json_option
@pass_context
def apps_get(context: Context, app_id: str, as_json: bool) -> None:
    """Show an app with its config and resources."""
    context.out.record(context.api().call(APP, appId=app_id), (*APP_FIELDS, "resources"), as_json)


@apps.command("update")
@app_argument
@click.option("--name")
@click.option("--slug")
@click.option("--metadata", help="A JSON object, or @file; replaces the metadata.")
@json_option
@pass_context
def apps_update(
    context: Context, app_id: str, name: str | None, slug: str | None, metadata: str | None, as_json: bool
) -> None:
    """Change an app's name, slug or metadata."""
    body = compact(name=name, slug=slug, metadata=json_object(metadata, "--metadata"))
    context.out.record(context.api().call(APP_UPDATE, appId=app_id, body=body), APP_FIELDS, as_json)


@apps.command("config")
@app_argument
@click.argument("config")
@json_option
@pass_context
def apps_config(context: Context, app_id: str, config: str, as_json: bool) -> None:
    """Replace an app's config with CONFIG, a JSON object or @file."""
    body = {"config": json_object(config, "CONFIG")}
    data = context.api().call(APP_CONFIG_UPDATE, appId=app_id, body=body)
    context.out.record(data, ("appId", "productId", "config", "updatedAt"), as_json)


@apps.command("resources")
@app_argument
@json_option
@pass_context
def apps_resources(context: Context, app_id: str, as_json: bool) -> None:
    """List an app's resources (its products)."""
    data = context.api().call(APP_RESOURCES, appId=app_id)
    columns = (short_id(), "resourceType", "product.slug", "product.name", when("createdAt"))
    context.out.items(data, columns, as_json, total=len(data))


@apps.command("add-product")
@app_argument
@product_argument
@json_option
@pass_context
def apps_add_product(context: Context, app_id: str, product_id: str, as_json: bool) -> None:
    """Add a product (its slug or id) to an app as a resource."""
    body = {"resourceId": product_id, "resourceType": "product"}
    data = context.api().call(APP_RESOURCES_CREATE, appId=app_id, body=body)
    context.out.record(data, RESOURCE_FIELDS, as_json)


@apps.command("remove-resource")
@app_argument
@resource_argument
@yes_option
@json_option
@pass_context
def apps_remove_resource(context: Context, app_id: str, resource_id: str, yes: bool, as_json: bool) -> None:
    """Remove a resource (its id or short id, as `aivis apps resources` shows it) from an app."""
    confirm(context, yes, f"Remove the resource {resource_id} from the app {app_id}?")
    data = context.api().call(APP_RESOURCE_DELETE, appId=app_id, appResourceId=resource_id)
    context.out.record(data, (*RESOURCE_FIELDS, "deletedAt"), as_json)


@apps.command("delete")
@app_argument
@yes_option
@json_option
@pass_context
def apps_delete(context: Context, app_id: str, yes: bool, as_json: bool) -> None:
    """Delete an app with its config, resources, domains and routes; `aivis apps restore` brings it back."""
    confirm(context, yes, f"Delete the app {app_id} with its domains and routes?")
    data = context.api().call(APP_DELETE, appId=app_id)
    context.out.record(data, ("id", "slug", "name", "deletedAt"), as_json)
    if not as_json:
        context.out.note(f"restore it with: aivis apps restore {data['id']}")


@apps.command("deleted")
@click.option("--limit", type=int, help="At most this many (1-200, default 50).")
@cursor_option
@json_option
@pass_context
def apps_deleted(context: Context, limit: int | None, cursor: str | None, as_json: bool) -> None:
    """List the apps deleted recently that can still be restored, most recently deleted first."""
    data = context.api().call(APPS_DELETED, query=compact(limit=limit, cursor=cursor))
    note = plural(len(data["items"]), "deleted app") + (
        f"; the next page: --cursor {data['nextCursor']}" if data["nextCursor"] else ""
    )
    columns = ("id", "name", when("deletedAt"), when("restorableUntil"))
    context.out.items(data["items"], columns, as_json, next_cursor=data["nextCursor"], note=note)


@apps.command("restore")
@click.argument("app_id")
@json_option
@pass_context
def apps_restore(context: Context, app_id: str, as_json: bool) -> None:
    """Bring back a deleted app (its full id, as `aivis apps deleted` lists it) with what its delete took."""
    if not is_full_id(app_id):
        raise click.BadParameter("give the deleted app's full id, as `aivis apps delete` printed it", param_hint="APP")
    context.out.record(context.api().call(APP_RESTORE, appId=app_id), (*APP_FIELDS, "resources"), as_json)


@apps.command("llms-txt")
@app_argument
@click.option("--full", is_flag=True, help="Every listed page in full (llms-full.txt) instead of the index.")
@pass_context
def apps_llms_txt(context: Context, app_id: str, full: bool) -> None:
    """Print an app's llms.txt: its published pages, as AI agents read them."""
    for piece in context.api().text(APP_LLMS_FULL_TXT if full else APP_LLMS_TXT, appId=app_id):
        click.echo(piece, nl=False)


@click.group()
def domains() -> None:
    """Domains of apps."""


@domains.command("list")
@app_argument
@json_option
@pass_context
def domains_list(context: Context, app_id: str, as_json: bool) -> None:
    """List an app's domains."""
    data = context.api().call(APP_DOMAINS, appId=app_id)
    context.out.items(data, DOMAIN_COLUMNS, as_json, total=len(data))


@domains.command("add")
@app_argument
@click.argument("hostname")
@click.option("--type", "domain_type", type=click.Choice(["web", "metric", "redirect"]), help="Default: web.")
@click.option("--origin", help="Where the domain's traffic comes from.")
@json_option
@pass_context
def domains_add(
    context: Context, app_id: str, hostname: str, domain_type: str | None, origin: str | None, as_json: bool
) -> None:
    """Add a domain (a lowercase hostname) to an app."""
    body = compact(domain=hostname, type=domain_type, origin=origin)
    context.out.record(context.api().call(APP_DOMAINS_CREATE, appId=app_id, body=body), DOMAIN_FIELDS, as_json)


@domains.command("delete")
@app_argument
@domain_argument
@yes_option
@json_option
@pass_context
def domains_delete(context: Context, app_id: str, domain_id: str, yes: bool, as_json: bool) -> None:
    """Remove a domain (its hostname, id or short id) from an app; its hostname is free at once."""
    confirm(context, yes, f"Remove the domain {domain_id} from the app {app_id}?")
    data = context.api().call(APP_DOMAIN_DELETE, appId=app_id, domainId=domain_id)
    context.out.record(data, (*DOMAIN_FIELDS, "deletedAt"), as_json)


@domains.command("verify")
@app_argument
@domain_argument
@json_option
@pass_context
def domains_verify(context: Context, app_id: str, domain_id: str, as_json: bool) -> None:
    """Check a domain's DNS record and mark the domain verified.

    DOMAIN is the hostname, the id or the short id `aivis domains list` shows. Publish the TXT record
    shown under `verification` first. Exits 0 when verified; 8, saying why, when not.
    """
    data = context.api().call(APP_DOMAIN_VERIFY, appId=app_id, domainId=domain_id)
    context.out.record(data, VERIFY_FIELDS, as_json)
    if not data["verified"]:
        reason = data["verificationError"] or {"code": "NOT_VERIFIED", "message": "the record was not checked"}
        message = f"{data['domain']} is not verified: {reason['code']}: {reason['message']}"
        raise CliError(message, EXIT_NOT_VERIFIED)


@domains.command("routing")
@click.argument("domain_id")
@json_option
@pass_context
def domains_routing(context: Context, domain_id: str, as_json: bool) -> None:
    """Show a domain's legacy routing config (deprecated; retired after 2026-12-15)."""
    data = context.api().call(LEGACY_ROUTING, id=domain_id)
    context.out.record(data, ("publishStatus", "publishedAt", "publishedHash", "publishError", "config"), as_json)


def register(root: click.Group) -> None:
    root.add_command(apps)
    root.add_command(domains)
