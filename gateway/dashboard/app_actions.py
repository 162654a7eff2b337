"""An app's deletes, its restore and its domains' verification, in the dashboard.

Each delete is a confirm page (GET) and its form (POST, CSRF-checked by the dashboard's
middleware) calling the API's delete route; the role's `content:write` is checked before the
page is shown, and again by the route. Deleting an app redirects to the apps list with a
"Restore" button for it: the API has no list of deleted apps, so a deleted app can be restored
from the dashboard only from there (or from the CLI, `aivis apps restore APP_ID`, within
`APPS_RESTORE_DAYS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

from gateway.dashboard import api
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import flash, render
from libs.common.errors import NotFound


@dataclass(frozen=True)
class Confirm:
    """What a confirm page says: the question, the thing, what follows, the button."""

    title: str
    subject: str
    consequence: str
    button: str
    cancel: str


async def _confirm(request: web.Request, confirm: Confirm) -> web.Response:
    _, membership = await member(request)
    return await render(request, "confirm.html", {"membership": membership, "confirm": confirm})


def _app_path(request: web.Request) -> str:
    return f"/{request.match_info['org']}/apps/{request.match_info['app']}"


async def _app(request: web.Request) -> dict[str, Any]:
    found: dict[str, Any] = await api.call(request, "apps_get", appId=request.match_info["app"])
    return found


async def _one(request: web.Request, name: str, key: str) -> dict[str, Any]:
    """The item of the app's list `name` whose id is the path's `key` (404 when none)."""
    items: list[dict[str, Any]] = await api.call(request, name, appId=request.match_info["app"])
    found = next((item for item in items if item["id"] == request.match_info[key]), None)
    if found is None:
        raise NotFound("Not found.")
    return found


async def app_delete_page(request: web.Request) -> web.Response:
    """GET …/{appId}/delete."""
    await member(request)
    await api.require(request, "apps_delete")
    app = await _app(request)
    consequence = (
        "Its config, resources, domains and routes are deleted with it; its hostnames stay reserved"
        " for it. It can be restored with all of them for 30 days."
    )
    return await _confirm(
        request, Confirm("Delete this app?", app["name"], consequence, "Delete app", _app_path(request))
    )


async def app_delete(request: web.Request) -> web.Response:
    """POST …/{appId}/delete: `DELETE /apps/{appId}`, then the apps list offers its restore."""
    _, membership = await member(request)
    deleted = await api.call(request, "apps_delete", appId=request.match_info["app"])
    await flash(request, f"The app {deleted['name']} is deleted.")
    raise web.HTTPSeeOther(f"/{membership.slug}/apps?deleted={deleted['id']}")


async def app_restore(request: web.Request) -> web.Response:
    """POST …/{appId}/restore: `POST /apps/{appId}/restore` (404 past the restore window, 409
    when not deleted or its slug is taken: the error page says so)."""
    _, membership = await member(request)
    restored = await api.call(request, "apps_restore", appId=request.match_info["app"])
    await flash(request, f"The app {restored['name']} is restored.")
    raise web.HTTPSeeOther(f"/{membership.slug}/apps/{restored['id']}")


async def route_delete_page(request: web.Request) -> web.Response:
    """GET …/routes/{routeId}/delete."""
    await member(request)
    await api.require(request, "apps_routes_delete")
    route = await api.call(
        request, "apps_routes_get", appId=request.match_info["app"], routeId=request.match_info["route"]
    )
    consequence = "Its path is free at once, and the page is no longer served there."
    return await _confirm(
        request,
        Confirm("Delete this route?", route["path"], consequence, "Delete route", _app_path(request) + "/routes"),
    )


async def route_delete(request: web.Request) -> web.Response:
    """POST …/routes/{routeId}/delete: `DELETE /apps/{appId}/routes/{routeId}`."""
    await member(request)
    deleted = await api.call(
        request, "apps_routes_delete", appId=request.match_info["app"], routeId=request.match_info["route"]
    )
    await flash(request, f"The route {deleted['path']} is deleted.")
    raise web.HTTPSeeOther(_app_path(request) + "/routes")


async def domain_delete_page(request: web.Request) -> web.Response:
    """GET …/domains/{domainId}/delete."""
    await member(request)
    await api.require(request, "apps_domains_delete")
    domain = await _one(request, "apps_domains_list", "domain")
    consequence = "The hostname is free at once: anyone may claim it."
    return await _confirm(
        request, Confirm("Remove this domain?", domain["domain"], consequence, "Remove domain", _app_path(request))
    )


async def domain_delete(request: web.Request) -> web.Response:
    """POST …/domains/{domainId}/delete: `DELETE /apps/{appId}/domains/{domainId}`."""
    await member(request)
    deleted = await api.call(
        request, "apps_domains_delete", appId=request.match_info["app"], domainId=request.match_info["domain"]
    )
    await flash(request, f"The domain {deleted['domain']} is removed.")
    raise web.HTTPSeeOther(_app_path(request))


async def resource_delete_page(request: web.Request) -> web.Response:
    """GET …/resources/{appResourceId}/delete."""
    await member(request)
    await api.require(request, "apps_resources_delete")
    resource = await _one(request, "apps_resources_list", "resource")
    name = resource["product"]["name"] if resource["product"] else "A deleted product"
    consequence = "Its documents are no longer route candidates of this app. It may be added again."
    return await _confirm(
        request, Confirm("Remove this product from the app?", name, consequence, "Remove product", _app_path(request))
    )


async def resource_delete(request: web.Request) -> web.Response:
    """POST …/resources/{appResourceId}/delete: `DELETE /apps/{appId}/resources/{appResourceId}`."""
    await member(request)
    await api.call(
        request, "apps_resources_delete", appId=request.match_info["app"], appResourceId=request.match_info["resource"]
    )
    await flash(request, "The product is removed from the app.")
    raise web.HTTPSeeOther(_app_path(request))


async def domain_verify(request: web.Request) -> web.Response:
    """POST …/domains/{domainId}/verify: `POST /apps/{appId}/domains/{domainId}/verify`; a failed
    check is an answer too (the domain's row shows its error)."""
    await member(request)
    domain = await api.call(
        request, "apps_domains_verify", appId=request.match_info["app"], domainId=request.match_info["domain"]
    )
    if domain["verified"]:
        await flash(request, f"The domain {domain['domain']} is verified.")
    else:
        await flash(request, f"The domain {domain['domain']} is not verified yet: its last check says why.")
    raise web.HTTPSeeOther(_app_path(request) + "#domains-heading")


def add_routes(router: web.UrlDispatcher) -> None:
    app = f"/{ORG}/apps/{{app}}"
    router.add_get(app + "/delete", app_delete_page, name="dashboard.app_delete")
    router.add_post(app + "/delete", app_delete, name="dashboard.app_delete_submit")
    router.add_post(app + "/restore", app_restore, name="dashboard.app_restore")
    router.add_get(app + "/routes/{route}/delete", route_delete_page, name="dashboard.route_delete")
    router.add_post(app + "/routes/{route}/delete", route_delete, name="dashboard.route_delete_submit")
    router.add_get(app + "/domains/{domain}/delete", domain_delete_page, name="dashboard.domain_delete")
    router.add_post(app + "/domains/{domain}/delete", domain_delete, name="dashboard.domain_delete_submit")
    router.add_post(app + "/domains/{domain}/verify", domain_verify, name="dashboard.domain_verify")
    router.add_get(app + "/resources/{resource}/delete", resource_delete_page, name="dashboard.resource_delete")
    router.add_post(app + "/resources/{resource}/delete", resource_delete, name="dashboard.resource_delete_submit")
