"""Deleted apps in the dashboard: the apps list's "Recently deleted" section, each with the date
its restore window ends and a Restore button, and a deleted app's own address, which says it was
deleted and offers the restore instead of a bare 404.

Both read `GET /api/v1/deleted-apps` (the apps deleted within their restore window); the restore
itself is app_actions.py's `POST …/{appId}/restore`.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from gateway.dashboard import api
from gateway.dashboard.render import render
from gateway.dashboard.session import Membership

PAGE = 200
# An organization deletes few apps within a window; the search of one stops after this many pages.
MAX_PAGES = 5


async def recently_deleted(request: web.Request) -> list[dict[str, Any]]:
    """The first page of the organization's deleted apps, most recently deleted first."""
    page = await api.call(request, "apps_deleted_list", query={"limit": PAGE})
    items: list[dict[str, Any]] = page["items"]
    return items


async def deleted_app(request: web.Request, app_id: str) -> dict[str, Any] | None:
    """The deleted app `app_id`, while it can be restored; None otherwise."""
    cursor = None
    for _ in range(MAX_PAGES):
        page = await api.call(request, "apps_deleted_list", query={"limit": PAGE, "cursor": cursor})
        found = next((app for app in page["items"] if app["id"] == app_id), None)
        cursor = page["nextCursor"]
        if found is not None or cursor is None:
            return found
    return None


async def deleted_app_page(request: web.Request, membership: Membership, app: dict[str, Any]) -> web.Response:
    """A deleted app's address: what happened, until when it can be restored, and the button (404)."""
    context = {"membership": membership, "app": app, "can_edit": await api.permits(request, "apps_restore")}
    return await render(request, "app_deleted.html", context, status=404)
