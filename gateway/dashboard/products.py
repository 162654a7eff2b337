"""/{orgSlug}/products: the organization's products, each with its site pages (the list of
`GET /site/pages`), a document's view and edit with a markdown preview, and its personas.

Products are the gateway's own records (read under `products:read`, as `GET /api/v1/products`
is); everything else is a call of the API's routes for the signed-in person (gateway/dashboard/api.py).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from multidict import MultiDictProxy

from gateway import product_queries
from gateway.dashboard import api
from gateway.dashboard.organization import ORG, member, page_number
from gateway.dashboard.render import flash, render
from gateway.dashboard.session import Membership
from libs.common.db import Row, cursor
from libs.common.errors import ApiError, NotFound, ValidationFailed
from libs.common.state import DB_POOL

PAGE_SIZE = 25
# The list's filters, as the page's query string names them (the API's own parameter names).
TEXT_FILTERS = ("query", "pathPrefix", "type", "domain")
CHOICE_FILTERS = {
    "status": ("", "draft", "published"),
    "isManual": ("", "true", "false"),
    "hasContent": ("", "true", "false"),
}
SORTS = {
    "updatedAt:desc": "Recently updated",
    "updatedAt:asc": "Least recently updated",
    "createdAt:desc": "Newest",
    "createdAt:asc": "Oldest",
}
# The editable text fields of a document (PUT /api/v1/content/{id}), in the form's order.
TEXT_FIELDS = (
    ("title", "Title"),
    ("filePath", "Path"),
    ("description", "Description"),
    ("descriptionForAgent", "Description for agents"),
    ("metaTitle", "Meta title"),
    ("metaDescription", "Meta description"),
    ("canonicalUrl", "Canonical URL"),
    ("ogTitle", "Open Graph title"),
    ("ogDescription", "Open Graph description"),
    ("ogImage", "Open Graph image URL"),
    ("redirectToUrl", "Redirect to"),
)
STATUSES = ("draft", "published")


async def product_of(request: web.Request, membership: Membership) -> Row:
    """The organization's live product the path names, by slug or id (404 for any other)."""
    await api.require(request, "products_get")
    wanted = request.match_info["product"]
    async with cursor(request.config_dict[DB_POOL]) as cur:
        products = await product_queries.list_products(cur, membership.organization_id)
    found = next((row for row in products if row["slug"] == wanted or str(row["id"]) == wanted), None)
    if found is None:
        raise NotFound("There is no such product in this organization.")
    return found


async def product_list(request: web.Request) -> web.Response:
    """GET /{orgSlug}/products."""
    _, membership = await member(request)
    await api.require(request, "products_list")
    async with cursor(request.config_dict[DB_POOL]) as cur:
        products = await product_queries.list_organization_products(cur, membership.organization_id)
    return await render(request, "products.html", {"membership": membership, "products": products})


def _list_query(request: web.Request, product_id: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The API query of the page list, and the filters as the form shows them."""
    shown: dict[str, str] = {name: request.query.get(name, "").strip() for name in TEXT_FILTERS}
    for name, choices in CHOICE_FILTERS.items():
        shown[name] = request.query.get(name, "")
        if shown[name] not in choices:
            raise ValidationFailed(f"Unknown value for {name}.")
    shown["sort"] = request.query.get("sort", "updatedAt:desc")
    if shown["sort"] not in SORTS:
        raise ValidationFailed("Unknown sort order.")
    order_by, direction = shown["sort"].split(":")
    query = {
        "productId": product_id,
        **{name: value for name, value in shown.items() if name != "sort"},
        "orderBy": order_by,
        "orderByDirection": direction,
        "page": page_number(request),
        "pageSize": PAGE_SIZE,
    }
    return query, shown


async def site_pages(request: web.Request) -> web.Response:
    """GET /{orgSlug}/products/{product}: its site pages with the list's filters, search and sort."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    query, shown = _list_query(request, str(product["id"]))
    listing = await api.call(request, "site_pages_list", query=query)
    context = {
        "membership": membership,
        "product": product,
        "listing": listing,
        "filters": shown,
        "filtered": any(value for name, value in shown.items() if name != "sort"),
        "sorts": SORTS,
        "can_edit": await api.permits(request, "content_update"),
    }
    return await render(request, "site_pages.html", context)


async def _document(request: web.Request, product: Row) -> dict[str, Any]:
    document: dict[str, Any] = await api.call(request, "content_get", id=request.match_info["document"])
    if document["brandId"] != str(product["id"]):
        raise NotFound("There is no such page in this product.")
    return document


async def _domains(request: web.Request, product: Row, document: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's domain attachments, as the site-pages list answers them."""
    query = {"productId": str(product["id"]), "pathPrefix": document["filePath"], "pageSize": 100}
    listing = await api.call(request, "site_pages_list", query=query)
    found = next((item for item in listing["items"] if item["id"] == document["id"]), None)
    return list(found["domains"]) if found is not None else []


async def _organization_domains(request: web.Request) -> list[dict[str, Any]]:
    """Every live domain of the organization's apps, by hostname (what a page may be attached to)."""
    found: dict[str, dict[str, Any]] = {}
    for app in await api.call(request, "apps_list"):
        for domain in await api.call(request, "apps_domains_list", appId=app["id"]):
            found[domain["id"]] = domain
    return sorted(found.values(), key=lambda domain: str(domain["domain"]))


def _domain_changes(form: MultiDictProxy[Any], attached: list[dict[str, Any]]) -> dict[str, Any]:
    """`PATCH /content/{id}/domains` for the boxes ticked and the canonical chosen; {} when the same."""
    before = {domain["id"] for domain in attached}
    after = {str(value) for value in form.getall("domains", [])}
    canonical = str(form.get("canonical", ""))
    current = next((domain["id"] for domain in attached if domain["isCanonical"]), "")
    change: dict[str, Any] = {}
    if after - before:
        change["attach"] = sorted(after - before)
    if before - after:
        change["detach"] = sorted(before - after)
    if canonical and canonical != current:
        change["canonicalDomainId"] = canonical
    return change


async def document_view(request: web.Request) -> web.Response:
    """GET /{orgSlug}/products/{product}/pages/{document}: the document, its markdown rendered."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    document = await _document(request, product)
    context = {
        "membership": membership,
        "product": product,
        "document": document,
        "domains": await _domains(request, product, document),
        "can_edit": await api.permits(request, "content_update"),
    }
    return await render(request, "document.html", context)


def _changes(form: MultiDictProxy[Any], document: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The fields of the edit form that differ from the document, as `PUT /content/{id}` takes
    them, and the form's own errors (a priority that is not a number)."""
    changes: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name in (*(name for name, _ in TEXT_FIELDS), "content"):
        value = str(form.get(name, "")).replace("\r\n", "\n")
        if value != (document.get(name) or ""):
            changes[name] = value
    tags = [tag.strip() for tag in str(form.get("tags", "")).split(",") if tag.strip()]
    if tags != document["tags"]:
        changes["tags"] = tags
    no_index = form.get("noIndex") == "on"
    if no_index != document["noIndex"]:
        changes["noIndex"] = no_index
    try:
        priority = float(str(form.get("priority", "")))
    except ValueError:
        errors["priority"] = "Must be a number from 0 to 100."
    else:
        if priority != document["priority"]:
            changes["priority"] = priority
    return changes, errors


async def _edit_page(
    request: web.Request,
    membership: Membership,
    product: Row,
    document: dict[str, Any],
    domains: list[dict[str, Any]],
    errors: dict[str, str] | None = None,
    preview: bool = False,
    status: int = 200,
) -> web.Response:
    context = {
        "membership": membership,
        "product": product,
        "document": document,
        "domains": domains,
        "domain_choices": await _organization_domains(request),
        "fields": TEXT_FIELDS,
        "statuses": STATUSES,
        "errors": errors or {},
        "preview": preview,
    }
    return await render(request, "document_edit.html", context, status=status)


async def document_edit(request: web.Request) -> web.Response:
    """GET …/pages/{document}/edit: the edit form (members with `content:write`)."""
    _, membership = await member(request)
    await api.require(request, "content_update")
    product = await product_of(request, membership)
    document = await _document(request, product)
    return await _edit_page(request, membership, product, document, await _domains(request, product, document))


async def document_save(request: web.Request) -> web.Response:
    """POST …/pages/{document}/edit: `intent=preview` shows the markdown as it will read, saving
    nothing; `intent=save` sends the changed fields, the status and the domains to the API."""
    _, membership = await member(request)
    await api.require(request, "content_update")
    product = await product_of(request, membership)
    document = await _document(request, product)
    form = await request.post()
    changes, errors = _changes(form, document)
    status = str(form.get("status", document["status"]))
    if status not in STATUSES:
        errors["status"] = "Choose draft or published."
    edited = {**document, **changes, "status": status}
    domain_change = _domain_changes(form, await _domains(request, product, document))
    canonical = str(form.get("canonical", ""))
    chosen = [{"id": str(value), "isCanonical": value == canonical} for value in form.getall("domains", [])]
    if form.get("intent") == "preview" or errors:
        code = 422 if errors else 200
        return await _edit_page(request, membership, product, edited, chosen, errors, preview=True, status=code)
    try:
        if changes:
            await api.call(request, "content_update", id=document["id"], json=changes)
        if status != document["status"]:
            body = {"productId": str(product["id"]), "pages": [{"id": document["id"], "status": status}]}
            failed = (await api.call(request, "site_pages_update", json=body))["failed"]
            if failed:
                raise ValidationFailed(failed[0]["message"], details={"status": failed[0]["message"]})
        if domain_change:
            await api.call(request, "content_domains_update", id=document["id"], json=domain_change)
    except ApiError as error:
        if error.status not in (409, 422):
            raise
        details = error.details if isinstance(error.details, dict) else {}
        problems = {str(name): str(message) for name, message in details.items()} or {"form": error.message}
        return await _edit_page(request, membership, product, edited, chosen, problems, status=error.status)
    changed = changes or domain_change or status != document["status"]
    await flash(request, "Saved." if changed else "Nothing changed.")
    raise web.HTTPSeeOther(f"/{membership.slug}/products/{product['slug']}/pages/{document['id']}")


async def personas(request: web.Request) -> web.Response:
    """GET /{orgSlug}/products/{product}/personas."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    answer = await api.call(request, "personas_list", productId=str(product["id"]))
    context = {"membership": membership, "product": product, "personas": answer["personas"], "total": answer["total"]}
    return await render(request, "personas.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    base = f"/{ORG}/products"
    router.add_get(base, product_list, name="dashboard.products")
    router.add_get(base + "/{product}", site_pages, name="dashboard.site_pages")
    router.add_get(base + "/{product}/personas", personas, name="dashboard.personas")
    router.add_get(base + "/{product}/pages/{document}", document_view, name="dashboard.document")
    router.add_get(base + "/{product}/pages/{document}/edit", document_edit, name="dashboard.document_edit")
    router.add_post(base + "/{product}/pages/{document}/edit", document_save, name="dashboard.document_save")
