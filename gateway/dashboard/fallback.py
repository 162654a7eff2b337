"""Addresses under an organization that are no page of the dashboard: a styled page, never the
API's JSON.

`/{orgSlug}/settings` (and `/{orgSlug}/members`, where a person may look for them) lead to the
members page; an address with a trailing slash leads to the page without it, when there is one;
anything else is the dashboard's 404 page (the same for a non-member: a page never tells whether
another organization exists). Registered last, so that every page of the dashboard comes first.
"""

from __future__ import annotations

from aiohttp import web

from gateway.dashboard.organization import ORG, member
from libs.common.errors import NotFound

# Sections people look for at the top of an organization, and the page that has them.
SECTIONS = {"settings": "settings/members", "members": "settings/members", "api-keys": "settings/api-keys"}


async def section(request: web.Request) -> web.Response:
    """GET /{orgSlug}/settings, /members, /api-keys: the page of that section."""
    _, membership = await member(request)
    raise web.HTTPSeeOther(f"/{membership.slug}/{SECTIONS[request.path.rstrip('/').rsplit('/', 1)[-1]]}")


async def unknown(request: web.Request) -> web.Response:
    """GET /{orgSlug}/…: the page without the trailing slash, or a styled 404."""
    _, membership = await member(request)
    stripped = request.path.rstrip("/")
    if stripped != request.path:
        found = await request.app.router.resolve(request.clone(rel_url=stripped))
        if found.http_exception is None and found.route.handler is not unknown:
            raise web.HTTPMovedPermanently(stripped + (f"?{request.query_string}" if request.query_string else ""))
    raise NotFound(f"There is no page at this address in {membership.name}. The menu above leads to every page.")


def add_routes(router: web.UrlDispatcher) -> None:
    for name in SECTIONS:
        router.add_get(f"/{ORG}/{name}", section, name=f"dashboard.section_{name.replace('-', '_')}")
    router.add_get(f"/{ORG}/{{rest:.+}}", unknown, name="dashboard.unknown")
