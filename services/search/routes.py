"""The whole route table of the search service."""

from __future__ import annotations

from aiohttp import web

from services.search import views


def setup_routes(app: web.Application) -> None:
    app.router.add_post("/api/v1/content/search/{orgId}", views.content_search, name="content_search")
