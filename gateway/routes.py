"""The gateway's whole route table: the proxied API routes and its own endpoints."""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from gateway import views
from gateway.proxy import compile_route
from gateway.route_table import Route


def setup_routes(app: web.Application, routes: tuple[Route, ...], upstreams: Mapping[str, str]) -> None:
    router = app.router
    router.add_get("/.well-known/jwks.json", views.jwks, name="jwks")
    router.add_get("/api/v1/openapi.json", views.openapi_document, name="openapi")
    router.add_post("/internal/products/lookup", views.internal_products_lookup, name="internal_products_lookup")
    for route in routes:
        router.add_route(route.method, route.path, compile_route(route, upstreams[route.upstream]), name=route.name)
