"""Every public route of the API: where it goes, what it needs, how it is documented.

Compiled once at startup into handlers (gateway/proxy.py) and into the OpenAPI document
(gateway/openapi.py). A route with no `response` schema is proxied but not yet documented:
its service has not been built, so it answers 502 until it is.

The schemas come from each service's `schemas.py`: pure declarations, the published contract
of that service. The gateway never imports a service's handlers or queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from marshmallow import Schema

from services.apps import schemas as apps
from services.content.schemas import documents, site_pages
from services.personas import schemas as personas
from services.search import schemas as search
from services.simulations import schemas as simulations

DEFAULT_TIMEOUT_SECONDS = 10.0
# The contract marks these deprecated from version 0.1.0 on (RFC 9745 `Deprecation` date).
CONTRACT_DATE = date(2026, 11, 1)
# Legacy routing stops responding after 2026-12-15 (contract, "Versioning").
LEGACY_ROUTING_SUNSET = datetime(2026, 12, 15, 23, 59, 59, tzinfo=UTC)


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    upstream: str
    scope: str
    name: str
    summary: str
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    # Tenancy checks at the edge: a path parameter holding an organization id, and a path
    # parameter, query parameter or top-level body field holding a product id; another
    # organization's id is 404.
    org_param: str | None = None
    product_param: str | None = None
    product_query: str | None = None
    product_body: str | None = None
    # Lifecycle: deprecated since, the successor to point at, the moment it stops answering.
    deprecated: date | None = None
    successor: str | None = None
    sunset: datetime | None = None
    # OpenAPI.
    query: type[Schema] | None = None
    body: type[Schema] | None = None
    response: type[Schema] | None = None
    response_many: bool = False
    status: int = 200
    # The documented error statuses, when the operation's contract lists them; otherwise
    # gateway/openapi.py derives them from the route.
    errors: tuple[int, ...] | None = None
    tag: str = ""


ROUTES: tuple[Route, ...] = (
    # Site pages and content (content service).
    Route("GET", "/api/v1/site/pages", "content", "content:read", "site_pages_list",
          "List a product's site pages", product_query="productId", tag="Site pages",
          query=site_pages.SitePagesQuery, response=site_pages.SitePageList),
    Route("POST", "/api/v1/site/pages", "content", "content:write", "site_pages_create",
          "Create site pages (deprecated: use Apps)", product_body="productId",
          deprecated=CONTRACT_DATE, successor="/api/v1/apps", tag="Site pages",
          body=site_pages.PagesCreate, response=site_pages.PagesCreated),
    Route("PATCH", "/api/v1/site/pages", "content", "content:write", "site_pages_update",
          "Update site pages (deprecated: use Apps)", product_body="productId",
          deprecated=CONTRACT_DATE, successor="/api/v1/apps", tag="Site pages",
          body=site_pages.PagesUpdate, response=site_pages.PagesUpdated),
    Route("DELETE", "/api/v1/site/pages", "content", "content:write", "site_pages_delete",
          "Delete site pages", product_body="productId", tag="Site pages",
          body=site_pages.PagesDelete, response=site_pages.PagesDeleted),
    Route("GET", "/api/v1/content/by-path", "content", "content:read", "content_get_by_path",
          "Get a content document by its product and path", product_query="brandId", tag="Content",
          query=documents.ContentByPathQuery, response=documents.ContentByPath),
    Route("GET", "/api/v1/content/{id}", "content", "content:read", "content_get",
          "Get a content document", tag="Content", response=documents.ContentDocument),
    Route("PATCH", "/api/v1/content/{id}", "content", "content:write", "content_set_priority",
          "Set a content document's priority", tag="Content",
          body=documents.PriorityUpdate, response=documents.ContentDocument),
    Route("PUT", "/api/v1/content/{id}", "content", "content:write", "content_update",
          "Update a content document's fields", tag="Content",
          body=documents.ContentUpdate, response=documents.ContentDocument),
    Route("PATCH", "/api/v1/content/{id}/domains", "content", "content:write", "content_domains_update",
          "Attach, detach and choose the canonical domain of a content document", tag="Content",
          body=documents.DomainsUpdate, response=documents.DocumentDomains),
    # Search (search service).
    Route("POST", "/api/v1/content/search/{orgId}", "search", "content:read", "content_search",
          "Semantic search over the organization's content", org_param="orgId", timeout=5.0, tag="Content",
          body=search.SearchRequest, response=search.SearchResult),
    # Apps (apps service).
    Route("GET", "/api/v1/apps", "apps", "content:read", "apps_list", "List apps",
          response=apps.App, response_many=True, tag="Apps"),
    Route("POST", "/api/v1/apps", "apps", "content:write", "apps_create", "Create an app",
          body=apps.AppCreate, response=apps.AppWithConfig, status=201, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}", "apps", "content:read", "apps_get", "Get an app",
          response=apps.AppDetail, tag="Apps"),
    Route("PATCH", "/api/v1/apps/{appId}", "apps", "content:write", "apps_update", "Update an app",
          body=apps.AppUpdate, response=apps.App, tag="Apps"),
    Route("PATCH", "/api/v1/apps/{appId}/app-config", "apps", "content:write", "apps_config_update",
          "Replace an app's config", body=apps.AppConfigUpdate, response=apps.AppConfig, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/resources", "apps", "content:read", "apps_resources_list",
          "List an app's resources", response=apps.AppResourceWithProduct, response_many=True, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/resources", "apps", "content:write", "apps_resources_create",
          "Add a product to an app", body=apps.ResourceCreate, response=apps.AppResource, status=201, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/domains", "apps", "content:read", "apps_domains_list",
          "List an app's domains", response=apps.AppDomain, response_many=True, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/domains", "apps", "content:write", "apps_domains_create",
          "Add a domain to an app", body=apps.DomainCreate, response=apps.AppDomain, status=201, tag="Apps"),
    Route("GET", "/api/v1/apps/{appId}/route-candidates", "apps", "content:read", "apps_route_candidates",
          "List a product's documents as route candidates", product_query="productId",
          query=apps.RouteCandidatesQuery, response=apps.RouteCandidates, tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/routes/import-preview", "apps", "content:write", "apps_routes_preview",
          "Check a route import without creating routes", body=apps.RouteImport, response=apps.RoutePreview,
          tag="Apps"),
    Route("POST", "/api/v1/apps/{appId}/routes/batch", "apps", "content:write", "apps_routes_batch",
          "Create routes, all or nothing", body=apps.RouteImport, response=apps.RouteBatchResult, tag="Apps"),
    Route("PATCH", "/api/v1/apps/{appId}/routes/{routeId}", "apps", "content:write", "apps_routes_update",
          "Update a route", body=apps.RouteUpdate, response=apps.AppRoute, tag="Apps"),
    Route("GET", "/api/v1/domain/{id}/routing", "apps", "content:read", "legacy_routing_get",
          "Get a domain's legacy routing config (deprecated)", deprecated=CONTRACT_DATE,
          sunset=LEGACY_ROUTING_SUNSET, response=apps.LegacyRouting, tag="Legacy routing"),
    # Personas, topics and prompt suggestions (personas service).
    Route("GET", "/api/v1/products/{productId}/personas", "personas", "products:read", "personas_list",
          "List a product's active personas", product_param="productId",
          query=personas.PageQuery, response=personas.PersonaList, tag="Personas"),
    Route("POST", "/api/v1/products/{productId}/personas", "personas", "products:write", "personas_create",
          "Create a persona of a product", product_param="productId",
          body=personas.PersonaCreate, response=personas.Persona, status=201, tag="Personas"),
    Route("PUT", "/api/v1/personas/{personaId}", "personas", "products:write", "personas_update",
          "Update a persona's supplied fields", body=personas.PersonaUpdate, response=personas.Persona,
          tag="Personas"),
    Route("DELETE", "/api/v1/personas/{personaId}", "personas", "products:write", "personas_delete",
          "Delete a persona, freeing its name", response=personas.Persona, tag="Personas"),
    Route("GET", "/api/v1/products/{productId}/topics", "personas", "prompts:read", "topics_list",
          "List a product's topics", product_param="productId",
          query=personas.PageQuery, response=personas.TopicList, tag="Topics"),
    Route("POST", "/api/v1/products/{productId}/topics", "personas", "prompts:write", "topics_create",
          "Create a topic of a product", product_param="productId",
          body=personas.TopicCreate, response=personas.Topic, status=201, tag="Topics"),
    Route("POST", "/api/v1/prompt-suggestions/regenerate", "personas", "prompts:write", "prompt_suggestions_regenerate",
          "Regenerate a product's prompt suggestions", product_body="productId", timeout=30.0,
          body=personas.RegenerateRequest, response=personas.RegenerateResult,
          errors=(400, 401, 403, 404, 422, 500), tag="Prompt suggestions"),
    Route("GET", "/api/v1/prompt-suggestions", "personas", "prompts:read", "prompt_suggestions_list",
          "List a product's prompt suggestions", product_query="productId",
          query=personas.SuggestionListQuery, response=personas.SuggestionList, tag="Prompt suggestions"),
    Route("PATCH", "/api/v1/prompt-suggestions/{suggestionId}", "personas", "prompts:write",
          "prompt_suggestions_review", "Accept, reject or reopen a prompt suggestion",
          body=personas.SuggestionReview, response=personas.Suggestion, tag="Prompt suggestions"),
    # Agent simulation (simulations service).
    Route("GET", "/api/v1/agent-simulation/runs", "simulations", "simulations:read", "simulation_runs_list",
          "List the organization's agent-simulation runs, newest first",
          query=simulations.RunListQuery, response=simulations.RunList, tag="Agent simulation"),
)  # fmt: skip
