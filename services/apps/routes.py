"""The apps service's HTTP routing: its public contract's handlers, then its internal endpoints."""

from __future__ import annotations

from aiohttp import web

from libs.common.webhook_outbox import internal_webhook_changes
from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.apps import contract
from services.apps.views import agent_files, app_routes, apps, domains, edge, legacy, resources, route_links

HANDLERS = (
    apps.apps_list,
    apps.apps_create,
    apps.apps_get,
    apps.apps_update,
    apps.apps_config_update,
    resources.apps_resources_list,
    resources.apps_resources_create,
    domains.apps_domains_list,
    domains.apps_domains_create,
    domains.apps_domains_verify,
    app_routes.apps_route_candidates,
    app_routes.apps_routes_preview,
    app_routes.apps_routes_batch,
    app_routes.apps_routes_get,
    app_routes.apps_routes_update,
    apps.apps_delete,
    apps.apps_restore,
    apps.apps_deleted_list,
    resources.apps_resources_delete,
    domains.apps_domains_delete,
    app_routes.apps_routes_list,
    app_routes.apps_routes_delete,
    legacy.legacy_routing_get,
    agent_files.apps_llms_txt,
    agent_files.apps_llms_full_txt,
    agent_files.apps_page_markdown,
    agent_files.apps_sitemap,
)
INTERNAL_HANDLERS = (
    domains.internal_domains_resolve,
    domains.internal_domains_by_host,
    route_links.internal_routes_by_url,
    agent_files.internal_app_published,
    internal_webhook_changes,
    edge.internal_edge_host,
    edge.internal_edge_site,
    edge.internal_edge_page,
    edge.internal_edge_llms_txt,
    edge.internal_edge_llms_full_txt,
    edge.internal_edge_sitemap,
    edge.internal_edge_versions,
)


def setup_routes(app: web.Application) -> None:
    router = app.router
    register_handlers(router, contract.ROUTES, HANDLERS)
    register_handlers(router, endpoints_of(contract.PART), INTERNAL_HANDLERS)
