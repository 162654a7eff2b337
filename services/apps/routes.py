"""The whole route table of the apps service."""

from __future__ import annotations

from aiohttp import web

from services.apps.views import apps, domains, legacy, resources, routes


def setup_routes(app: web.Application) -> None:
    router = app.router
    router.add_get("/api/v1/apps", apps.apps_list, name="apps_list")
    router.add_post("/api/v1/apps", apps.apps_create, name="apps_create")
    router.add_get("/api/v1/apps/{appId}", apps.apps_get, name="apps_get")
    router.add_patch("/api/v1/apps/{appId}", apps.apps_update, name="apps_update")
    router.add_patch("/api/v1/apps/{appId}/app-config", apps.apps_config_update, name="apps_config_update")
    router.add_get("/api/v1/apps/{appId}/resources", resources.resources_list, name="apps_resources_list")
    router.add_post("/api/v1/apps/{appId}/resources", resources.resources_create, name="apps_resources_create")
    router.add_get("/api/v1/apps/{appId}/domains", domains.domains_list, name="apps_domains_list")
    router.add_post("/api/v1/apps/{appId}/domains", domains.domains_create, name="apps_domains_create")
    router.add_get("/api/v1/apps/{appId}/route-candidates", routes.routes_candidates, name="apps_route_candidates")
    router.add_post("/api/v1/apps/{appId}/routes/import-preview", routes.routes_preview, name="apps_routes_preview")
    router.add_post("/api/v1/apps/{appId}/routes/batch", routes.routes_batch, name="apps_routes_batch")
    router.add_patch("/api/v1/apps/{appId}/routes/{routeId}", routes.routes_update, name="apps_routes_update")
    router.add_get("/api/v1/domain/{id}/routing", legacy.legacy_routing_get, name="legacy_routing_get")
    router.add_post("/internal/domains/resolve", domains.internal_domains_resolve, name="internal_domains_resolve")
