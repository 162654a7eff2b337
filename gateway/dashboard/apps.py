"""/{orgSlug}/apps: the organization's apps; one app's resources, domains and llms.txt preview,
its routes (the routes list by path prefix, a page at a time; edit), route import from a CSV
previewed before anything is created, and its route candidates. Every read and write is a call
of the API's routes (gateway/dashboard/api.py); deletes, restore and domain verification are in
app_actions.py.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from typing import Any

from aiohttp import web

from gateway.dashboard import api, deleted_apps
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import flash, render
from gateway.dashboard.session import Membership
from libs.common.errors import ApiError, ValidationFailed

CANDIDATES_PAGE = 50
ROUTES_PAGE = 25
# The llms.txt preview on the app's page: its first lines, the whole file a link away.
LLMS_PREVIEW_LINES = 60
IMPORT_MAX_ROWS = 100
IMPORT_MAX_BYTES = 256 * 1024
IMPORT_COLUMNS = ("path", "targetId")


async def _app(request: web.Request) -> dict[str, Any]:
    found: dict[str, Any] = await api.call(request, "apps_get", appId=request.match_info["app"])
    return found


def _app_path(membership: Membership, app: dict[str, Any]) -> str:
    return f"/{membership.slug}/apps/{app['id']}"


def route_page(request: web.Request, membership: Membership, app_id: str, route_id: str) -> str:
    """The dashboard's page of an App route: its path and target document (`dashboard.route_edit`)."""
    return str(request.app.router["dashboard.route_edit"].url_for(org=membership.slug, app=app_id, route=route_id))


async def app_list(request: web.Request) -> web.Response:
    """GET /{orgSlug}/apps."""
    _, membership = await member(request)
    apps = await api.call(request, "apps_list")
    context = {
        "membership": membership,
        "apps": apps,
        "can_edit": await api.permits(request, "apps_create"),
        "deleted_apps": await deleted_apps.recently_deleted(request),
    }
    return await render(request, "apps.html", context)


async def app_detail(request: web.Request) -> web.Response:
    """GET /{orgSlug}/apps/{appId}: the app, its resources (products) and domains."""
    _, membership = await member(request)
    try:
        app = await _app(request)
    except ApiError as error:
        deleted = await deleted_apps.deleted_app(request, request.match_info["app"]) if error.status == 404 else None
        if deleted is None:
            raise
        return await deleted_apps.deleted_app_page(request, membership, deleted)
    context = {
        "membership": membership,
        "app": app,
        "resources": await api.call(request, "apps_resources_list", appId=app["id"]),
        "domains": await api.call(request, "apps_domains_list", appId=app["id"]),
        "llms": await _llms_preview(request, app["id"]),
        "can_edit": await api.permits(request, "apps_update"),
    }
    return await render(request, "app.html", context)


async def _llms_preview(request: web.Request, app_id: str) -> dict[str, Any]:
    """The first lines of the app's llms.txt, or why there is none (409: no product yet)."""
    try:
        text = await api.call_text(request, "apps_llms_txt", appId=app_id)
    except ApiError as error:
        if error.status != 409:
            raise
        return {"text": None, "error": error.message, "more": False}
    lines = text.splitlines()
    return {"text": "\n".join(lines[:LLMS_PREVIEW_LINES]), "error": None, "more": len(lines) > LLMS_PREVIEW_LINES}


async def _candidates_page(request: web.Request, app_id: str, query: dict[str, Any]) -> dict[str, Any]:
    page: dict[str, Any] = await api.call(request, "apps_route_candidates", appId=app_id, query=query)
    return page


def served_at(domains: list[dict[str, Any]]) -> str | None:
    """Where the edge serves the app's routed pages: its first verified web domain, if any."""
    served = (d["domain"] for d in domains if d["type"] == "web" and d["verified"] and not d["releasedAt"])
    return next(served, None)


async def routes(request: web.Request) -> web.Response:
    """GET /{orgSlug}/apps/{appId}/routes[?pathPrefix=&cursor=]: `GET /apps/{appId}/routes`, the
    app's live routes oldest first, those under a path prefix, a page at a time (next by cursor)."""
    _, membership = await member(request)
    app = await _app(request)
    prefix = request.query.get("pathPrefix", "").strip()
    query: api.Query = {"limit": ROUTES_PAGE, "pathPrefix": prefix, "cursor": request.query.get("cursor")}
    try:
        page = await api.call(request, "apps_routes_list", appId=app["id"], query=query)
        error = None
    except ApiError as failure:
        if failure.status != 422:  # a prefix that is no route path, a stale cursor
            raise
        page, error = {"routes": [], "nextCursor": None}, failure
    domains = await api.call(request, "apps_domains_list", appId=app["id"])
    context = {
        "membership": membership,
        "app": app,
        "routes": page["routes"],
        # Where the edge serves the routed pages: the first verified web domain.
        "site": next(
            (d["domain"] for d in domains if d["type"] == "web" and d["verified"] and not d["releasedAt"]), None
        ),
        "prefix": prefix,
        "error": _field_messages(error) if error else None,
        "next_cursor": page["nextCursor"],
        "can_edit": await api.permits(request, "apps_routes_update"),
    }
    return await render(request, "app_routes.html", context, status=422 if error else 200)


def _field_messages(error: ApiError) -> str:
    """An error's message with its fields' reasons, for a line above a form."""
    details = error.details if isinstance(error.details, dict) else {}
    return " ".join([error.message, *(str(message) for message in details.values())])


async def route_edit(request: web.Request) -> web.Response:
    """GET …/routes/{routeId}/edit: the route's path and target document (`GET …/routes/{routeId}`)."""
    _, membership = await member(request)
    await api.require(request, "apps_routes_update")
    app = await _app(request)
    found = await api.call(request, "apps_routes_get", appId=app["id"], routeId=request.match_info["route"])
    route = {"id": found["id"], "path": found["path"], "targetId": found["targetId"]}
    return await render(
        request, "route_edit.html", {"membership": membership, "app": app, "route": route, "errors": {}}
    )


async def route_save(request: web.Request) -> web.Response:
    """POST …/routes/{routeId}/edit: `PATCH /apps/{appId}/routes/{routeId}` with path and target."""
    _, membership = await member(request)
    await api.require(request, "apps_routes_update")
    app = await _app(request)
    form = await request.post()
    route = {
        "id": request.match_info["route"],
        "path": str(form.get("path", "")).strip(),
        "targetId": str(form.get("targetId", "")).strip(),
    }
    body = {"path": route["path"], "targetId": route["targetId"], "targetType": "product_document"}
    try:
        saved = await api.call(request, "apps_routes_update", appId=app["id"], routeId=route["id"], json=body)
    except ApiError as error:
        if error.status not in (409, 422):
            raise
        details = error.details if isinstance(error.details, dict) else {}
        errors = {str(name): str(message) for name, message in details.items()} or {"form": error.message}
        context = {"membership": membership, "app": app, "route": route, "errors": errors}
        return await render(request, "route_edit.html", context, status=error.status)
    await flash(request, f"The route {saved['path']} is saved.")
    raise web.HTTPSeeOther(_app_path(membership, app) + "/routes")


def parse_routes_csv(text: str) -> list[dict[str, str]]:
    """The routes of a CSV with a header row naming `path` and `targetId` (`targetType` optional,
    `product_document`); rows are counted from 1, the header not counted."""
    if len(text.encode()) > IMPORT_MAX_BYTES:
        raise ValidationFailed(f"The CSV is larger than {IMPORT_MAX_BYTES // 1024} KB.")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in IMPORT_COLUMNS if name not in header]
    if missing:
        raise ValidationFailed(
            f"The CSV's header row lacks the column{'s' if len(missing) > 1 else ''} {' and '.join(missing)}."
        )
    reader.fieldnames = header
    routes = []
    for number, row in enumerate(reader, start=1):
        if number > IMPORT_MAX_ROWS:
            raise ValidationFailed(f"A CSV imports at most {IMPORT_MAX_ROWS} routes at once.")
        path, target = (row.get("path") or "").strip(), (row.get("targetId") or "").strip()
        if not path or not target:
            raise ValidationFailed(f"Row {number} lacks its path or targetId.")
        routes.append(
            {
                "path": path,
                "targetId": target,
                "targetType": (row.get("targetType") or "").strip() or "product_document",
            }
        )
    if not routes:
        raise ValidationFailed("The CSV has a header row but no routes.")
    return routes


async def import_page(request: web.Request) -> web.Response:
    """GET …/import: paste or upload a CSV."""
    _, membership = await member(request)
    await api.require(request, "apps_routes_batch")
    context = {
        "membership": membership,
        "app": await _app(request),
        "csv": "",
        "preview": None,
        "error": None,
        "row_problems": [],
        "digest": "",
    }
    return await render(request, "route_import.html", context)


async def import_submit(request: web.Request) -> web.Response:
    """POST …/import: `intent=preview` answers the API's preview and creates nothing;
    `intent=create` creates the previewed routes (the CSV travels in the form, unchanged)."""
    _, membership = await member(request)
    await api.require(request, "apps_routes_batch")
    app = await _app(request)
    form = await request.post()
    upload = form.get("file")
    text = str(form.get("csv", ""))
    if isinstance(upload, web.FileField) and upload.filename:
        text = upload.file.read(IMPORT_MAX_BYTES + 1).decode("utf-8", errors="replace")
    text = text.replace("\r\n", "\n")  # browsers send a textarea's lines with CRLF
    digest = hashlib.sha256(text.encode()).hexdigest()
    context: dict[str, Any] = {
        "membership": membership,
        "app": app,
        "csv": text,
        "preview": None,
        "error": None,
        "row_problems": [],
        "digest": digest,
    }
    try:
        body = {"routes": parse_routes_csv(text)}
        # Only what was previewed is created: a CSV changed since is previewed again first.
        if form.get("intent") == "create" and form.get("previewed") == digest:
            created = await api.call(request, "apps_routes_batch", appId=app["id"], json=body)
            count = created["createdCount"]
            await flash(request, f"{count} route{'' if count == 1 else 's'} created.")
            raise web.HTTPSeeOther(_app_path(membership, app) + "/routes")
        context["preview"] = await api.call(request, "apps_routes_preview", appId=app["id"], json=body)
    except ApiError as error:
        if error.status not in (409, 422):
            raise
        context["row_problems"] = row_problems(error.details)
        context["error"] = ROWS_REFUSED if context["row_problems"] else error.message
        return await render(request, "route_import.html", context, status=error.status)
    return await render(request, "route_import.html", context)


ROWS_REFUSED = "These rows cannot be imported; fix them and preview again."
_ROUTE_FIELD = re.compile(r"routes\.(\d+)\.(\w+)")


def row_problems(details: object) -> list[str]:
    """The API's field errors of an import (`routes.3.path`) as the CSV's rows, counted from 1 as
    a person counts them: `Row 4, path: Not a valid route path.`"""
    if not isinstance(details, dict):
        return []
    problems = []
    for field, message in details.items():
        reason = " ".join(message) if isinstance(message, list) else str(message)
        matched = _ROUTE_FIELD.fullmatch(str(field))
        where = f"Row {int(matched.group(1)) + 1}, {matched.group(2)}" if matched else str(field)
        problems.append(f"{where}: {reason}")
    return problems


async def candidates(request: web.Request) -> web.Response:
    """GET …/candidates[?status=&includeRouted=&cursor=]: documents that could get a route."""
    _, membership = await member(request)
    app = await _app(request)
    status = request.query.get("status", "published")
    include_routed = request.query.get("includeRouted") == "true"
    query = {
        "status": status,
        "includeRouted": include_routed,
        "limit": CANDIDATES_PAGE,
        "cursor": request.query.get("cursor"),
    }
    page = await _candidates_page(request, app["id"], query)
    can_edit = await api.permits(request, "apps_routes_batch")
    context = {"membership": membership, "app": app, "page": page, "status": status, "include_routed": include_routed}
    context["can_edit"] = can_edit
    return await render(request, "app_candidates.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    base = f"/{ORG}/apps"
    router.add_get(base, app_list, name="dashboard.apps")
    router.add_get(base + "/{app}", app_detail, name="dashboard.app")
    router.add_get(base + "/{app}/routes", routes, name="dashboard.app_routes")
    router.add_get(base + "/{app}/routes/{route}/edit", route_edit, name="dashboard.route_edit")
    router.add_post(base + "/{app}/routes/{route}/edit", route_save, name="dashboard.route_save")
    router.add_get(base + "/{app}/import", import_page, name="dashboard.route_import")
    router.add_post(base + "/{app}/import", import_submit, name="dashboard.route_import_submit")
    router.add_get(base + "/{app}/candidates", candidates, name="dashboard.route_candidates")
