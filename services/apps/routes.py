"""The apps service's HTTP routing: its public contract's handlers, then its internal endpoints."""

from __future__ import annotations

from aiohttp import web

from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.apps import contract
from services.apps.views import app_routes, apps, domains, legacy, resources

HANDLERS = {
    "apps_list": apps.apps_list,
    "apps_create": apps.apps_create,
    "apps_get": apps.apps_get,
    "apps_update": apps.apps_update,
    "apps_config_update": apps.apps_config_update,
    "apps_resources_list": resources.resources_list,
    "apps_resources_create": resources.resources_create,
    "apps_domains_list": domains.domains_list,
    "apps_domains_create": domains.domains_create,
    "apps_route_candidates": app_routes.routes_candidates,
    "apps_routes_preview": app_routes.routes_preview,
    "apps_routes_batch": app_routes.routes_batch,
    "apps_routes_update": app_routes.routes_update,
    "legacy_routing_get": legacy.legacy_routing_get,
}
INTERNAL_HANDLERS = {"internal_domains_resolve": domains.internal_domains_resolve}


def setup_routes(app: web.Application) -> None:
    router = app.router
    register_handlers(router, contract.ROUTES, HANDLERS)
    register_handlers(router, endpoints_of(contract.PART), INTERNAL_HANDLERS)
