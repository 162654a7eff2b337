"""The apps service's public routes: apps, their resources, domains and routes, and legacy routing.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.route import CONTRACT_DATE, LEGACY_ROUTING_SUNSET, Route
from services.apps.schemas import requests, responses

PART = "apps"

ROUTES: tuple[Route, ...] = (
    Route("GET", "/api/v1/apps", PART, "content:read", "apps_list", "List apps",
          response=responses.App, response_many=True, tag="Apps"),
    Route("POST", "/api/v1/apps", PART, "content:write", "apps_create", "Create an app",
          body=requests.AppCreate, response=responses.AppWithConfig, status=201, tag="Apps", versioned=True),
    Route("GET", "/api/v1/apps/{appId}", PART, "content:read", "apps_get", "Get an app",
          response=responses.AppDetail, tag="Apps", versioned=True),
    Route("PATCH", "/api/v1/apps/{appId}", PART, "content:write", "apps_update", "Update an app",
          body=requests.AppUpdate, response=responses.App, tag="Apps", versioned=True),
    Route("PATCH", "/api/v1/apps/{appId}/app-config", PART, "content:write", "apps_config_update",
          "Replace an app's config", body=requests.AppConfigUpdate, response=responses.AppConfig, tag="Apps",
          versioned=True),
    Route("GET", "/api/v1/apps/{appId}/resources", PART, "content:read", "apps_resources_list",
          "List an app's resources", response=responses.AppResourceWithProduct, response_many=True, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/resources", PART, "content:write", "apps_resources_create",
          "Add a product to an app", product_reference="resourceId", body=requests.ResourceCreate,
          response=responses.AppResource, status=201, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/domains", PART, "content:read", "apps_domains_list",
          "List an app's domains", response=responses.AppDomain, response_many=True, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/domains", PART, "content:write", "apps_domains_create",
          "Add a domain to an app", body=requests.DomainCreate, response=responses.AppDomain, status=201, tag="Apps",
          versioned=True),
    Route("GET", "/api/v1/apps/{appId}/route-candidates", PART, "content:read", "apps_route_candidates",
          "List a product's documents as route candidates", product_query="productId", streamed=True,
          query=requests.RouteCandidatesQuery, response=responses.RouteCandidates, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/routes/import-preview", PART, "content:write", "apps_routes_preview",
          "Check a route import without creating routes", body=requests.RouteImport, response=responses.RoutePreview,
          tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/routes/batch", PART, "content:write", "apps_routes_batch",
          "Create routes, all or nothing", body=requests.RouteImport, response=responses.RouteBatchResult, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/routes/{routeId}", PART, "content:read", "apps_routes_get",
          "Get a route with its target", response=responses.AppRoute, tag="Apps", versioned=True),
    Route("PATCH", "/api/v1/apps/{appId}/routes/{routeId}", PART, "content:write", "apps_routes_update",
          "Update a route", body=requests.RouteUpdate, response=responses.AppRoute, tag="Apps", versioned=True),
    # Beyond the contract (docs/architecture.md, "Apps service", "Whole resources").
    Route("DELETE", "/api/v1/apps/{appId}", PART, "content:write", "apps_delete",
          "Delete an app with its config, resources, domains and routes (beyond the contract)",
          response=responses.App, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/restore", PART, "content:write", "apps_restore",
          "Restore a deleted app with what its delete took (beyond the contract)",
          response=responses.AppDetail, tag="Apps"),
    Route("DELETE", "/api/v1/apps/{appId}/resources/{appResourceId}", PART, "content:write",
          "apps_resources_delete", "Remove a resource from an app (beyond the contract)",
          response=responses.AppResource, tag="Apps"),
    Route("DELETE", "/api/v1/apps/{appId}/domains/{domainId}", PART, "content:write", "apps_domains_delete",
          "Remove a domain from an app (beyond the contract)", response=responses.AppDomain, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/routes", PART, "content:read", "apps_routes_list",
          "List an app's routes, a page at a time (beyond the contract)", query=requests.RoutesQuery,
          response=responses.RouteList, tag="Apps"),
    Route("DELETE", "/api/v1/apps/{appId}/routes/{routeId}", PART, "content:write", "apps_routes_delete",
          "Delete a route (beyond the contract)", response=responses.AppRoute, tag="Apps"),
    Route("GET", "/api/v1/domain/{id}/routing", PART, "content:read", "legacy_routing_get",
          "Get a domain's legacy routing config (deprecated)", deprecated=CONTRACT_DATE,
          sunset=LEGACY_ROUTING_SUNSET, response=responses.LegacyRouting, tag="Legacy routing"),
)  # fmt: skip
