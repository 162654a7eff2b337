"""The internal endpoints, declared once: the serving part registers its handlers by these
declarations (`register_handlers`), and its callers reach them only through the typed clients
built on them (libs/common/clients.py), so a path is written here and nowhere else.

Each declaration names its request body or query and its answer (libs/contract/internal_bodies.py),
which both sides use: the server loads the request through them and builds the answer as that
type, the client builds the request through them and reads the answer as that type.
OAuth's paths, which outside clients call, are declared here too (`OAUTH`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from marshmallow import Schema

from libs.contract import internal_bodies as b
from libs.contract.parts import WEBHOOK_SOURCES


@dataclass(frozen=True)
class Endpoint:
    """One endpoint: the part serving it, method, path (with `{name}` parameters) and handler name;
    its JSON request body or its query (a schema, or the owning part's `Owned` one), and its answer
    (a TypedDict, or `Text` passed on as written). OAuth's endpoints, outside this contract's bodies,
    declare none."""

    part: str
    method: str
    path: str
    name: str
    body: Schema | None = None
    query: Schema | b.Owned | None = None
    answer: object = None

    def body_of(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """`values` (by the body schema's attribute names) as the JSON object the server loads: each
        under its declared key. The values go as they are (the server checks them); a name the
        schema does not declare, or a required one left out, is the caller's error."""
        return _keyed(self.body, values, self.name)

    def query_of(self, values: Mapping[str, Any]) -> list[tuple[str, str]]:
        """`values` (by the query schema's attribute names) as query parameters: a list repeats its
        parameter, a boolean is `true`/`false`, None leaves the parameter out."""
        query = self.query if isinstance(self.query, Schema) else None
        pairs: list[tuple[str, str]] = []
        for key, value in _keyed(query, {k: v for k, v in values.items() if v is not None}, self.name).items():
            for item in value if isinstance(value, list | tuple) else (value,):
                pairs.append((key, ("true" if item else "false") if isinstance(item, bool) else str(item)))
        return pairs

    def url(self, base_url: str, query: Iterable[tuple[str, str]] = (), **parameters: str) -> str:
        """The endpoint's address at `base_url`, its path parameters filled in (percent-encoded) and
        `query` appended."""
        path = self.path.format_map({key: quote(value, safe="") for key, value in parameters.items()})
        encoded = urlencode(list(query))
        return f"{base_url}{path}?{encoded}" if encoded else f"{base_url}{path}"


def _keyed(schema: Schema | None, values: Mapping[str, Any], name: str) -> dict[str, Any]:
    if schema is None:
        raise TypeError(f"{name} declares no schema for these values")
    declared = schema.fields
    undeclared = sorted(set(values) - set(declared))
    missing = sorted(key for key, field in declared.items() if field.required and key not in values)
    if undeclared or missing:
        raise TypeError(f"{name}: undeclared {undeclared}, missing {missing}")
    return {declared[key].data_key or key: value for key, value in values.items()}


IDS = b.Ids()
CHANGES_QUERY = b.ChangesQuery()

DOCUMENTS_LOOKUP = Endpoint(
    "content", "POST", "/internal/documents/lookup", "internal_documents_lookup", body=IDS, answer=b.Targets
)
TARGETS = Endpoint("content", "GET", "/internal/targets", "internal_targets", query=b.TargetsQuery(), answer=b.Targets)
TARGETS_COUNT = Endpoint(
    "content", "POST", "/internal/targets/count", "internal_targets_count", body=b.TargetCount(), answer=b.Count
)
DOCUMENT = Endpoint("content", "GET", "/internal/documents/{id}", "internal_document_get", answer=b.Document)
ORGANIZATION_DOCUMENTS = Endpoint(
    "content",
    "GET",
    "/internal/organizations/{orgId}/documents",
    "internal_organization_documents",
    query=b.OrganizationDocumentsQuery(),
    answer=b.DocumentsPage,
)
# What an App publishes for agents (llms.txt, sitemap): its routed documents' listing, then their text.
DOCUMENTS_LISTED = Endpoint(
    "content",
    "POST",
    "/internal/documents/listed",
    "internal_documents_listed",
    body=b.DocumentsListed(),
    answer=b.ListedDocuments,
)
DOCUMENTS_LAST_CHANGE = Endpoint(
    "content", "GET", "/internal/documents/last-change", "internal_documents_last_change", answer=b.LastChange
)
DOCUMENTS_TEXT = Endpoint(
    "content",
    "POST",
    "/internal/documents/text",
    "internal_documents_text",
    body=b.DocumentsText(),
    answer=b.DocumentsTexts,
)
DOCUMENT_INDEXED = Endpoint(
    "content",
    "POST",
    "/internal/documents/{id}/indexed",
    "internal_document_indexed",
    body=b.Indexed(),
    answer=b.IndexedAt,
)
DOMAINS_RESOLVE = Endpoint(
    "apps", "POST", "/internal/domains/resolve", "internal_domains_resolve", body=IDS, answer=b.ResolvedDomains
)
# Which App of the caller's organization claims each hostname (verified or not): AI traffic's hosts.
DOMAINS_BY_HOST = Endpoint(
    "apps",
    "POST",
    "/internal/domains/by-host",
    "internal_domains_by_host",
    body=b.DomainsByHost(),
    answer=b.HostDomains,
)
# Which App route of the caller's organization serves each URL (on a verified App domain): the analysis
# of AI answers links the pages they cite to the routes that serve them.
ROUTES_BY_URL = Endpoint(
    "apps", "POST", "/internal/routes/by-url", "internal_routes_by_url", body=b.RoutesByUrl(), answer=b.RoutesAtUrls
)
# A document an App publishes for agents, by its path on the App's site (`/llms.txt`, `/sitemap.xml`, a
# page's path for its markdown), as the public App edge serves it: what simulated agents read.
APP_PUBLISHED = Endpoint(
    "apps",
    "GET",
    "/internal/apps/{appId}/published",
    "internal_app_published",
    query=b.PublishedQuery(),
    answer=b.AGENT_TEXT,
)
# The apps service's withdrawn domains (released, deleted, purged: docs/architecture.md, "Domain ownership"
# and "Whole resources"), detached from documents.
DOMAINS_WITHDRAWN = Endpoint(
    "content", "POST", "/internal/domains/withdrawn", "internal_domains_withdrawn", body=IDS, answer=b.Detached
)
# What the public edge (services/edge) reads of apps: which App a hostname serves, and that App's
# site, routed pages and agent files; the versions tell it when its copies are stale.
EDGE_HOST = Endpoint("apps", "GET", "/internal/edge/hosts/{hostname}", "internal_edge_host", answer=b.EdgeHost)
EDGE_SITE = Endpoint("apps", "GET", "/internal/edge/apps/{appId}/site", "internal_edge_site", answer=b.EdgeSite)
EDGE_PAGE = Endpoint(
    "apps",
    "GET",
    "/internal/edge/apps/{appId}/page",
    "internal_edge_page",
    query=b.RoutedPageQuery(),
    answer=b.EdgePage,
)
EDGE_LLMS_TXT = Endpoint(
    "apps", "GET", "/internal/edge/apps/{appId}/llms.txt", "internal_edge_llms_txt", answer=b.AGENT_TEXT
)
EDGE_LLMS_FULL_TXT = Endpoint(
    "apps", "GET", "/internal/edge/apps/{appId}/llms-full.txt", "internal_edge_llms_full_txt", answer=b.AGENT_TEXT
)
EDGE_SITEMAP = Endpoint(
    "apps", "GET", "/internal/edge/apps/{appId}/sitemap.xml", "internal_edge_sitemap", answer=b.AGENT_TEXT
)
EDGE_VERSIONS = Endpoint(
    "apps", "POST", "/internal/edge/versions", "internal_edge_versions", body=b.EdgeVersions(), answer=b.AppVersions
)
# The simulation runner's intake.
TASKS_CREATE = Endpoint(
    "simulations", "POST", "/internal/tasks", "internal_tasks_create", body=b.TaskIntake(), answer=b.RecordedTask
)
ENVIRONMENTS_CREATE = Endpoint(
    "simulations",
    "POST",
    "/internal/environments",
    "internal_environments_create",
    body=b.EnvironmentIntake(),
    answer=b.RecordedEnvironment,
)
RUNS_CREATE = Endpoint(
    "simulations", "POST", "/internal/runs", "internal_runs_create", body=b.RunIntake(), answer=b.Run
)
# A part's changes after a stream position, from its outbox (libs/common/changes.py).
CONTENT_CHANGES = Endpoint(
    "content", "GET", "/internal/changes", "internal_changes", query=CHANGES_QUERY, answer=b.Changes
)
PRODUCT_CHANGES = Endpoint(
    "gateway", "GET", "/internal/product-changes", "internal_product_changes", query=CHANGES_QUERY, answer=b.Changes
)
# Each webhook source's webhook events after a stream position, for the events part.
WEBHOOK_CHANGES = {
    part.name: Endpoint(
        part.name,
        "GET",
        "/internal/webhook-changes",
        "internal_webhook_changes",
        query=CHANGES_QUERY,
        answer=b.Changes,
    )
    for part in WEBHOOK_SOURCES
}
# What the analysis of AI answers looks for (analytics reads them in the background, never while
# serving a request of the gateway's): the product's brand, its competitors, the prompt answered.
PRODUCT_BRAND = Endpoint(
    "gateway", "GET", "/internal/products/{productId}/brand", "internal_product_brand", answer=b.Product
)
COMPETITOR_SET = Endpoint(
    "personas",
    "GET",
    "/internal/products/{productId}/competitors",
    "internal_competitor_set",
    answer=b.CompetitorSet,
)
PROMPT = Endpoint("personas", "GET", "/internal/prompts/{promptId}", "internal_prompt_get", answer=b.Prompt)
PRODUCT_PROMPTS = Endpoint(
    "personas", "GET", "/internal/products/{productId}/prompts", "internal_product_prompts", answer=b.Prompts
)
# AI traffic's sums over a period, for the analytics part's ai_traffic report: the public summary's
# query and answer, for the calling organization.
TRAFFIC_SUMMARY = Endpoint(
    "traffic",
    "GET",
    "/internal/ai-traffic/summary",
    "internal_traffic_summary",
    query=b.Owned("services.traffic.schemas:TrafficSummaryQuery"),
    answer=b.TrafficSummary,
)
# Every organization's active prompts of a cadence, for the analytics part's scheduler.
SCHEDULED_PROMPTS = Endpoint(
    "personas",
    "GET",
    "/internal/prompts/scheduled",
    "internal_scheduled_prompts",
    query=b.ScheduledQuery(),
    answer=b.PromptsPage,
)

ENDPOINTS: tuple[Endpoint, ...] = (
    DOCUMENTS_LOOKUP,
    TARGETS,
    TARGETS_COUNT,
    DOCUMENT,
    ORGANIZATION_DOCUMENTS,
    DOCUMENTS_LISTED,
    DOCUMENTS_LAST_CHANGE,
    DOCUMENTS_TEXT,
    DOCUMENT_INDEXED,
    DOMAINS_RESOLVE,
    DOMAINS_BY_HOST,
    ROUTES_BY_URL,
    APP_PUBLISHED,
    DOMAINS_WITHDRAWN,
    EDGE_HOST,
    EDGE_SITE,
    EDGE_PAGE,
    EDGE_LLMS_TXT,
    EDGE_LLMS_FULL_TXT,
    EDGE_SITEMAP,
    EDGE_VERSIONS,
    TASKS_CREATE,
    ENVIRONMENTS_CREATE,
    RUNS_CREATE,
    CONTENT_CHANGES,
    PRODUCT_CHANGES,
    *WEBHOOK_CHANGES.values(),
    PRODUCT_BRAND,
    COMPETITOR_SET,
    PROMPT,
    PRODUCT_PROMPTS,
    SCHEDULED_PROMPTS,
    TRAFFIC_SUMMARY,
)


def endpoints_of(part: str) -> tuple[Endpoint, ...]:
    """The internal endpoints `part` serves, in declaration order."""
    return tuple(endpoint for endpoint in ENDPOINTS if endpoint.part == part)


@dataclass(frozen=True)
class OAuthEndpoints:
    """The gateway's OAuth endpoints (RFC 8628, RFC 6749, RFC 7009, RFC 8414) and the page where
    people approve a device: not in the route table (they answer OAuth's shape, not the envelope)."""

    metadata: Endpoint
    device_authorization: Endpoint
    token: Endpoint
    revocation: Endpoint
    device_page: str

    def all(self) -> tuple[Endpoint, ...]:
        return (self.metadata, self.device_authorization, self.token, self.revocation)


OAUTH = OAuthEndpoints(
    metadata=Endpoint("gateway", "GET", "/.well-known/oauth-authorization-server", "oauth_metadata"),
    device_authorization=Endpoint("gateway", "POST", "/api/v1/oauth/device/code", "oauth_device_code"),
    token=Endpoint("gateway", "POST", "/api/v1/oauth/token", "oauth_token"),
    revocation=Endpoint("gateway", "POST", "/api/v1/oauth/revoke", "oauth_revoke"),
    device_page="/device",
)
