"""The whole route table of the apps service."""

from __future__ import annotations

from aiohttp import web

from services.apps import views


def setup_routes(app: web.Application) -> None:
    router = app.router
    router.add_post("/internal/domains/resolve", views.internal_domains_resolve, name="internal_domains_resolve")
