"""Creating and changing apps in the dashboard: an app (create, rename, its config), a product
resource, a domain, one route, and routes from the route candidates in one step.

Each form posts to its page and calls one API route (gateway/dashboard/api.py) for the signed-in
person; what the API refuses is shown beside the field it names (gateway/dashboard/forms.py).
`content:write` is checked before a form is shown, and again by the route.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from gateway import product_queries
from gateway.dashboard import api
from gateway.dashboard.apps import ROWS_REFUSED, row_problems
from gateway.dashboard.forms import FORM, Field, Form, refused, show, text
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import flash
from gateway.dashboard.session import Membership
from libs.common.db import cursor
from libs.common.errors import ApiError
from libs.common.state import DB_POOL

NAME = Field("name", "Name", required=True, max_length=120)
SLUG = Field("slug", "Slug", hint="Lowercase letters, digits and hyphens; it names the app in URLs.", max_length=120)
DOMAIN_TYPES = (
    ("web", "Web: the edge serves the app's pages here"),
    ("metric", "Metric: analytics only"),
    ("redirect", "Redirect: sends visitors to the app's web domain"),
)
DOMAIN_FIELDS = (
    Field("domain", "Hostname", required=True, hint="Such as docs.example.com.", max_length=253),
    Field("type", "Type", kind="select", options=DOMAIN_TYPES),
    Field(
        "origin",
        "Origin (optional)",
        kind="url",
        max_length=2048,
        hint="Where the edge fetches what the app does not route, such as https://www.example.com.",
    ),
)
ROUTE_FIELDS = (
    Field("path", "Path", required=True, max_length=2048, hint="Such as /pricing or /docs/setup."),
    Field(
        "targetId",
        "Target page id",
        required=True,
        max_length=64,
        hint="The id of a page of one of the app's products; Route candidates lists them.",
    ),
)


async def _app(request: web.Request) -> dict[str, Any]:
    found: dict[str, Any] = await api.call(request, "apps_get", appId=request.match_info["app"])
    return found


def _app_path(membership: Membership, app_id: str) -> str:
    return f"/{membership.slug}/apps/{app_id}"


async def _writer(request: web.Request) -> Membership:
    _, membership = await member(request)
    await api.require(request, "apps_update")
    return membership


def _new_app_form(membership: Membership) -> Form:
    return Form(
        "New app",
        "Create app",
        f"/{membership.slug}/apps",
        "Apps",
        (NAME, SLUG),
        intro="An app publishes your products' pages at your domains, with its own routes and llms.txt.",
    )


async def app_new(request: web.Request) -> web.Response:
    """GET/POST /{orgSlug}/apps/new: `POST /apps` with a name and an optional slug."""
    membership = await _writer(request)
    form = _new_app_form(membership)
    if request.method == "GET":
        return await show(request, membership, form)
    posted = await request.post()
    values = {"name": text(posted, "name"), "slug": text(posted, "slug")}
    body = {"name": values["name"], **({"slug": values["slug"]} if values["slug"] else {})}
    try:
        created = await api.call(request, "apps_create", json=body)
    except ApiError as error:
        return await refused(request, membership, form, values, error)
    await flash(request, f"The app {created['name']} is created. Add a product and a domain next.")
    raise web.HTTPSeeOther(_app_path(membership, created["id"]))


async def app_settings(request: web.Request) -> web.Response:
    """GET/POST …/{appId}/settings: `PATCH /apps/{appId}` with its name and slug."""
    membership = await _writer(request)
    app = await _app(request)
    back = _app_path(membership, app["id"])
    form = Form(
        "Rename app",
        "Save",
        back,
        app["name"],
        (NAME, SLUG),
        intro="Changing the slug changes the app's URLs in the API and on the command line.",
    )
    if request.method == "GET":
        return await show(request, membership, form, {"name": app["name"], "slug": app["slug"]})
    posted = await request.post()
    values = {"name": text(posted, "name"), "slug": text(posted, "slug")}
    try:
        saved = await api.call(request, "apps_update", appId=app["id"], json=values)
    except ApiError as error:
        return await refused(request, membership, form, values, error)
    await flash(request, f"The app {saved['name']} is saved.")
    raise web.HTTPSeeOther(back)


async def app_config(request: web.Request) -> web.Response:
    """GET/POST …/{appId}/config: `PATCH /apps/{appId}/app-config` with the config object."""
    membership = await _writer(request)
    app = await _app(request)
    back = _app_path(membership, app["id"])
    field = Field(
        "config",
        "Configuration (JSON)",
        kind="json",
        required=True,
        hint="A JSON object; it replaces the app's configuration whole.",
    )
    form = Form("App configuration", "Save configuration", back, app["name"], (field,))
    if request.method == "GET":
        return await show(request, membership, form, {"config": json.dumps(app["appConfig"]["config"], indent=2)})
    values = {"config": str((await request.post()).get("config", ""))}
    try:
        config = json.loads(values["config"])
    except json.JSONDecodeError as problem:
        message = f"This is not valid JSON: {problem.msg} (line {problem.lineno}, column {problem.colno})."
        return await show(request, membership, form, values, {"config": message}, status=422)
    try:
        await api.call(request, "apps_config_update", appId=app["id"], json={"config": config})
    except ApiError as error:
        return await refused(request, membership, form, values, error)
    await flash(request, "The configuration is saved.")
    raise web.HTTPSeeOther(back + "#config-heading")


async def resource_new(request: web.Request) -> web.Response:
    """GET/POST …/{appId}/resources/new: `POST /apps/{appId}/resources` with one of the
    organization's products (those already in the app are not offered)."""
    membership = await _writer(request)
    app = await _app(request)
    back = _app_path(membership, app["id"])
    present = {item["resourceId"] for item in await api.call(request, "apps_resources_list", appId=app["id"])}
    # Products are the gateway's own records, read as the products pages read them.
    async with cursor(request.config_dict[DB_POOL]) as cur:
        products = await product_queries.list_products(cur, membership.organization_id)
    options = tuple((str(item["id"]), item["name"]) for item in products if str(item["id"]) not in present)
    field = Field(
        "resourceId",
        "Product",
        kind="select",
        required=True,
        options=options,
        hint="Its pages become the app's route candidates.",
    )
    form = Form("Add a product", "Add product", back, app["name"], (field,))
    if request.method == "GET":
        errors = {} if options else {FORM: "Every product of the organization is in this app already."}
        return await show(request, membership, form, {}, errors)
    values = {"resourceId": text(await request.post(), "resourceId")}
    try:
        await api.call(request, "apps_resources_create", appId=app["id"], json={**values, "resourceType": "product"})
    except ApiError as error:
        return await refused(request, membership, form, values, error)
    name = next((label for value, label in options if value == values["resourceId"]), "The product")
    await flash(request, f"{name} is added to the app.")
    raise web.HTTPSeeOther(back)


async def domain_new(request: web.Request) -> web.Response:
    """GET/POST …/{appId}/domains/new: `POST /apps/{appId}/domains`; the app's page then shows
    the TXT record that proves the claim, and its Verify button."""
    membership = await _writer(request)
    app = await _app(request)
    back = _app_path(membership, app["id"])
    form = Form(
        "Add a domain",
        "Add domain",
        back,
        app["name"],
        DOMAIN_FIELDS,
        intro="Next you publish a TXT record at your DNS provider, then verify.",
    )
    if request.method == "GET":
        return await show(request, membership, form, {"type": "web"})
    posted = await request.post()
    values = {item.name: text(posted, item.name) for item in DOMAIN_FIELDS}
    body = {name: value for name, value in values.items() if value}
    try:
        added = await api.call(request, "apps_domains_create", appId=app["id"], json=body)
    except ApiError as error:
        return await refused(request, membership, form, values, error)
    await flash(request, f"The domain {added['domain']} is added: publish its TXT record, then verify.")
    raise web.HTTPSeeOther(back + "#domains-heading")


async def route_new(request: web.Request) -> web.Response:
    """GET/POST …/{appId}/routes/new[?path=&targetId=]: one route, `POST /apps/{appId}/routes/batch`
    with one item (the contract has no single create)."""
    membership = await _writer(request)
    app = await _app(request)
    back = _app_path(membership, app["id"]) + "/routes"
    form = Form("New route", "Create route", back, f"{app['name']} · Routes", ROUTE_FIELDS)
    if request.method == "GET":
        return await show(
            request, membership, form, {name: request.query.get(name, "") for name in ("path", "targetId")}
        )
    posted = await request.post()
    values = {"path": text(posted, "path"), "targetId": text(posted, "targetId")}
    body = {"routes": [{**values, "targetType": "product_document"}]}
    try:
        await api.call(request, "apps_routes_batch", appId=app["id"], json=body)
    except ApiError as error:
        return await refused(request, membership, form, values, error, prefix="routes.0.")
    await flash(request, f"The route {values['path']} is created.")
    raise web.HTTPSeeOther(back)


async def candidates_route(request: web.Request) -> web.Response:
    """POST …/{appId}/candidates: the chosen candidates become routes at their suggested paths,
    in one `POST /apps/{appId}/routes/batch`; a refused row is named by its place in the choice."""
    membership = await _writer(request)
    app_id = request.match_info["app"]
    back = _app_path(membership, app_id) + "/candidates"
    chosen = [str(value) for value in (await request.post()).getall("candidate", [])]
    routes = []
    for value in chosen:
        target, _, path = value.partition(" ")
        routes.append({"path": path, "targetId": target, "targetType": "product_document"})
    if not routes:
        await flash(request, "Choose at least one page.")
        raise web.HTTPSeeOther(back)
    try:
        created = await api.call(request, "apps_routes_batch", appId=app_id, json={"routes": routes})
    except ApiError as error:
        if error.status not in (409, 422):
            raise
        problems = row_problems(error.details)
        await flash(request, " ".join([ROWS_REFUSED if problems else error.message, *problems]))
        raise web.HTTPSeeOther(back) from None
    count = created["createdCount"]
    await flash(request, f"{count} route{'' if count == 1 else 's'} created.")
    raise web.HTTPSeeOther(_app_path(membership, app_id) + "/routes")


def add_routes(router: web.UrlDispatcher) -> None:
    """Registered before apps.py's, so that `apps/new` is not read as an app id."""
    base = f"/{ORG}/apps"
    for method in ("GET", "POST"):
        suffix = "" if method == "GET" else "_submit"
        router.add_route(method, base + "/new", app_new, name="dashboard.app_new" + suffix)
        router.add_route(method, base + "/{app}/settings", app_settings, name="dashboard.app_settings" + suffix)
        router.add_route(method, base + "/{app}/config", app_config, name="dashboard.app_config" + suffix)
        router.add_route(method, base + "/{app}/resources/new", resource_new, name="dashboard.resource_new" + suffix)
        router.add_route(method, base + "/{app}/domains/new", domain_new, name="dashboard.domain_new" + suffix)
        router.add_route(method, base + "/{app}/routes/new", route_new, name="dashboard.route_new" + suffix)
    router.add_post(base + "/{app}/candidates", candidates_route, name="dashboard.route_candidates_submit")
