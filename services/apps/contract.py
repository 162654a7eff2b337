"""The apps service's public routes: apps, their resources, domains and routes, and legacy routing.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.event import Event
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
          body=requests.AppUpdate, response=responses.App, tag="Apps", versioned=True, if_match=True),
    Route("PATCH", "/api/v1/apps/{appId}/app-config", PART, "content:write", "apps_config_update",
          "Replace an app's config", body=requests.AppConfigUpdate, response=responses.AppConfig, tag="Apps",
          versioned=True, if_match=True),
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
    Route("POST", "/api/v1/apps/{appId}/domains/{domainId}/verify", PART, "content:write", "apps_domains_verify",
          "Check a domain's TXT record and mark it verified", response=responses.AppDomain, tag="Apps",
          versioned=True),
    Route("GET", "/api/v1/apps/{appId}/route-candidates", PART, "content:read", "apps_route_candidates",
          "List a product's documents as route candidates", product_query="productId", streamed=True,
          query=requests.RouteCandidatesQuery, response=responses.RouteCandidates, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/routes/import-preview", PART, "content:write", "apps_routes_preview",
          "Check a route import without creating routes", read_only=True, body=requests.RouteImport,
          response=responses.RoutePreview, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/routes/batch", PART, "content:write", "apps_routes_batch",
          "Create routes, all or nothing", body=requests.RouteImport, response=responses.RouteBatchResult, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/routes/{routeId}", PART, "content:read", "apps_routes_get",
          "Get a route with its target", response=responses.AppRoute, tag="Apps", versioned=True),
    Route("PATCH", "/api/v1/apps/{appId}/routes/{routeId}", PART, "content:write", "apps_routes_update",
          "Update a route", body=requests.RouteUpdate, response=responses.AppRoute, tag="Apps", versioned=True,
          if_match=True),
    # Beyond the contract (docs/architecture.md, "Apps service", "Whole resources").
    Route("DELETE", "/api/v1/apps/{appId}", PART, "content:write", "apps_delete",
          "Delete an app with its config, resources, domains and routes",
          response=responses.App, tag="Apps", if_match=True),
    Route("GET", "/api/v1/deleted-apps", PART, "content:read", "apps_deleted_list",
          "List the apps deleted within their restore window, most recently deleted first",
          query=requests.DeletedAppsQuery, response=responses.DeletedAppList, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/restore", PART, "content:write", "apps_restore",
          "Restore a deleted app with what its delete took",
          response=responses.AppDetail, tag="Apps"),
    Route("DELETE", "/api/v1/apps/{appId}/resources/{appResourceId}", PART, "content:write",
          "apps_resources_delete", "Remove a resource from an app",
          response=responses.AppResource, tag="Apps"),
    Route("DELETE", "/api/v1/apps/{appId}/domains/{domainId}", PART, "content:write", "apps_domains_delete",
          "Remove a domain from an app", response=responses.AppDomain, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/routes", PART, "content:read", "apps_routes_list",
          "List an app's routes, a page at a time", query=requests.RoutesQuery,
          response=responses.RouteList, tag="Apps"),
    Route("DELETE", "/api/v1/apps/{appId}/routes/{routeId}", PART, "content:write", "apps_routes_delete",
          "Delete a route", response=responses.AppRoute, tag="Apps",
          if_match=True),
    # Beside the contract: what agents read of an App (docs/architecture.md, "What agents read").
    Route("GET", "/api/v1/apps/{appId}/llms.txt", PART, "content:read", "apps_llms_txt",
          "An app's llms.txt: its published pages for agents", media_type="text/plain", versioned=True,
          errors=(401, 403, 404, 409, 500, 502, 503, 504), tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/llms-full.txt", PART, "content:read", "apps_llms_full_txt",
          "An app's llms-full.txt: its published pages in full, streamed", media_type="text/plain",
          versioned=True, streamed=True, errors=(401, 403, 404, 409, 500, 502, 503, 504), tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/pages/markdown", PART, "content:read", "apps_page_markdown",
          "The markdown of the published page an app routes at a path", query=requests.PageQuery,
          media_type="text/markdown", versioned=True, errors=(401, 403, 404, 409, 422, 500, 502, 503, 504),
          tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/sitemap.xml", PART, "content:read", "apps_sitemap",
          "An app's sitemap.xml of its published, indexable pages", media_type="application/xml",
          versioned=True, errors=(401, 403, 404, 409, 500, 502, 503, 504), tag="Apps"),
    Route("GET", "/api/v1/domain/{id}/routing", PART, "content:read", "legacy_routing_get",
          "Get a domain's legacy routing config (deprecated)", deprecated=CONTRACT_DATE,
          sunset=LEGACY_ROUTING_SUNSET, response=responses.LegacyRouting, tag="Legacy routing"),
)  # fmt: skip

# Each carries the resource as the API shows it (a route without the target and product answers add).
EVENTS: tuple[Event, ...] = (
    Event("app.created", "An app was created.", responses.App, "Apps"),
    Event("app.updated", "An app's name, slug or metadata was changed.", responses.App, "Apps"),
    Event("app.deleted", "An app was deleted, with what it owns.", responses.App, "Apps"),
    Event("app.restored", "A deleted app was restored.", responses.App, "Apps"),
    Event("app.domain.created", "A domain was added to an app, verified or not.", responses.AppDomain, "Apps"),
    Event(
        "app.domain.verified", "A domain's TXT record was found: the domain is verified.", responses.AppDomain, "Apps"
    ),
    Event("app.domain.deleted", "A domain was removed from an app, or deleted with it.", responses.AppDomain, "Apps"),
    Event(
        "app.domain.taken_over",
        "Another organization proved a domain of this app (unverified, or verified with its TXT record missing for"
        " the grace period) and took the hostname over: the domain is released (`releaseReason: claimed`).",
        responses.AppDomain,
        "Apps",
    ),
    Event("app.route.created", "A route was added to an app.", responses.StoredRoute, "Apps"),
    Event("app.route.updated", "A route was changed, or restored with its app.", responses.StoredRoute, "Apps"),
    Event(
        "app.route.deleted",
        "A route was deleted (`deletedAt`), on its own or with its app.",
        responses.StoredRoute,
        "Apps",
    ),
)
