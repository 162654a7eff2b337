"""The bodies of the internal endpoints (libs/contract/internal.py), declared once for both sides.

A request body or query is a marshmallow schema: the serving part loads the request through it
(`libs.common.schemas.load_endpoint_body` / `load_endpoint_query`), and the typed client builds the
request through it (`Endpoint.body_of` / `Endpoint.query_of`: the declared keys, nothing else; the
values go as they are, checked by the server). An answer is a TypedDict: the serving part builds it
as that type and the client reads it as that type, both checked by mypy; the tests check every
answer the suite's parts give against it (tests/answer_shapes.py).

Where an answer carries a resource as its owner's API shows it (a document, a prompt, a product),
the TypedDict names that resource's response schema (`Owned`) rather than restating its fields:
the owning part declares it once, and the tests check the answer against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from marshmallow import ValidationError, fields, validate, validates_schema

from libs.contract.api_schema import ApiSchema
from libs.contract.validators import (
    ROUTE_PATH_MAX,
    StrictBoolean,
    StrictNumber,
    StrictString,
    UtcDateTime,
    UuidList,
    UuidString,
    length,
    route_path_validators,
)

# How many ids (documents, domains, hostnames, URLs, Apps) one lookup takes.
LOOKUP_MAX = 500
# A page of an organization's documents.
DOCUMENTS_PAGE_DEFAULT, DOCUMENTS_PAGE_MAX = 100, 500
# Route targets: the products of one app, a page of their documents, the ids counted at once.
TARGET_PRODUCTS_MAX = 100
TARGET_PAGE_MAX = 1000
TARGET_COUNT_IDS_MAX = 10_000
# An App's routed documents, listed for agents at most this many a call; their text fewer at once.
LISTED_IDS_MAX = 10_000
TEXT_IDS_MAX = 50
# The longest URL an AI answer may cite (the analytics part's limit), linked to a route by its path.
CITED_URL_MAX = 4096
HOSTNAME_LOOKUP_MAX = 253
# A page of a part's changes (libs/common/changes.py).
CHANGES_PAGE_MAX = 1000
SCHEDULED_PAGE_DEFAULT, SCHEDULED_PAGE_MAX = 500, 1000
DOCUMENT_STATUSES = ("draft", "published")
CADENCES = ("daily", "weekly")
# A task's or environment's name and category, a run's status: from the runner or the API.
TASK_NAME_MAX = 200
RUN_STATUS_MAX = 64
SANDBOX_REFERENCE_MAX = 512


@dataclass(frozen=True)
class Owned:
    """A resource's shape as its owning part declares it: `module:Schema`, a response schema of that
    part, named here and never imported (the contract stands below every part)."""

    schema: str


# A JSON object whose fields the contract does not constrain (an App's config, an event on a stream).
JsonObject = dict[str, Any]


# Requests


class Ids(ApiSchema):
    """Documents or domains, by id."""

    ids = fields.List(UuidString(), required=True, validate=length(1, LOOKUP_MAX))


class TargetsQuery(ApiSchema):
    """A page of the products' documents as route targets, after the document (afterPath, afterId)."""

    # Repeated in the query string: productId=…&productId=…
    product_id = fields.List(UuidString(), required=True, validate=length(1, TARGET_PRODUCTS_MAX))
    status = StrictString(load_default="published", validate=validate.OneOf(DOCUMENT_STATUSES))
    after_path = StrictString(validate=length(0, ROUTE_PATH_MAX))
    after_id = UuidString()
    limit = fields.Integer(load_default=TARGET_PAGE_MAX, validate=validate.Range(min=1, max=TARGET_PAGE_MAX))

    @validates_schema
    def _after_names_one_document(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("after_path" in data) != ("after_id" in data):
            raise ValidationError("afterPath and afterId are given together.", "afterId")


class TargetCount(ApiSchema):
    product_ids = fields.List(UuidString(), required=True, validate=length(1, TARGET_PRODUCTS_MAX))
    status = StrictString(load_default="published", validate=validate.OneOf(DOCUMENT_STATUSES))
    # Count only these documents (the ones an app routes, say).
    ids = UuidList(validate=length(0, TARGET_COUNT_IDS_MAX))


class DocumentsListed(ApiSchema):
    ids = UuidList(required=True, validate=length(1, LISTED_IDS_MAX))


class DocumentsText(ApiSchema):
    ids = UuidList(required=True, validate=length(1, TEXT_IDS_MAX))


class OrganizationDocumentsQuery(ApiSchema):
    after = UuidString()
    limit = fields.Integer(load_default=DOCUMENTS_PAGE_DEFAULT, validate=validate.Range(min=1, max=DOCUMENTS_PAGE_MAX))


class Indexed(ApiSchema):
    last_indexed_at = fields.AwareDateTime(required=True)


class DomainsByHost(ApiSchema):
    hosts = fields.List(
        fields.String(validate=length(1, HOSTNAME_LOOKUP_MAX)), required=True, validate=length(1, LOOKUP_MAX)
    )


class RoutesByUrl(ApiSchema):
    urls = fields.List(fields.String(validate=length(1, CITED_URL_MAX)), required=True, validate=length(1, LOOKUP_MAX))


class PublishedQuery(ApiSchema):
    """A path of an App's site: an agent file's (`/llms.txt`), a page's, or a page's with `.md`."""

    path = StrictString(required=True, validate=length(1, ROUTE_PATH_MAX))


class RoutedPageQuery(ApiSchema):
    """The public page routes' query too (the markdown of a routed page)."""

    path = StrictString(
        required=True,
        validate=route_path_validators(),
        metadata={"description": "A routed path of the app, as any of its equivalent spellings (`/pricing`)."},
    )


class EdgeVersions(ApiSchema):
    app_ids = fields.List(UuidString(), required=True, validate=length(1, LOOKUP_MAX))


class ChangesQuery(ApiSchema):
    after = fields.Integer(required=True, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=CHANGES_PAGE_MAX, validate=validate.Range(min=1, max=CHANGES_PAGE_MAX))


class ScheduledQuery(ApiSchema):
    """The scheduler's read of the prompts due by cadence."""

    cadence = fields.String(required=True, validate=validate.OneOf(CADENCES))
    after = UuidString()
    limit = fields.Integer(load_default=SCHEDULED_PAGE_DEFAULT, validate=validate.Range(min=1, max=SCHEDULED_PAGE_MAX))


class TaskIntake(ApiSchema):
    id = UuidString()
    organization_id = UuidString(required=True)
    name = StrictString(required=True, validate=length(1, TASK_NAME_MAX))
    category = StrictString(required=True, validate=length(1, TASK_NAME_MAX))


class EnvironmentIntake(ApiSchema):
    id = UuidString()
    organization_id = UuidString(required=True)
    task_id = UuidString(required=True)
    name = StrictString(required=True, validate=length(1, TASK_NAME_MAX))
    agent_config = fields.Raw(load_default=None, allow_none=True)


class RunIntake(ApiSchema):
    id = UuidString()
    organization_id = UuidString(required=True)
    environment_id = UuidString(required=True)
    task_id = UuidString(required=True)
    status = StrictString(required=True, validate=length(1, RUN_STATUS_MAX))
    sandbox_id = StrictString(allow_none=True, validate=length(1, SANDBOX_REFERENCE_MAX))
    sandbox_snapshot = StrictString(allow_none=True, validate=length(1, SANDBOX_REFERENCE_MAX))
    overall_score = StrictNumber(allow_none=True)
    passed = StrictBoolean(allow_none=True)
    tokens_used = StrictNumber(allow_none=True, validate=validate.Range(min=0))
    cost_usd = StrictNumber(allow_none=True, validate=validate.Range(min=0))
    started_at = UtcDateTime(allow_none=True)
    completed_at = UtcDateTime(allow_none=True)
    duration = StrictNumber(allow_none=True, validate=validate.Range(min=0))
    volume_ids = fields.Raw(allow_none=True)
    log_s3_keys = fields.Raw(allow_none=True)
    metadata = fields.Raw(allow_none=True)


# Answers

Document = Annotated[dict[str, Any], Owned("services.content.schemas.documents:ContentDocument")]
Target = Annotated[dict[str, Any], Owned("libs.common.schemas:AppRouteTarget")]
Prompt = Annotated[dict[str, Any], Owned("services.personas.tracking_schemas:Prompt")]
Product = Annotated[dict[str, Any], Owned("gateway.schemas:ProductDetail")]
TrafficSummary = Annotated[dict[str, Any], Owned("services.traffic.schemas:TrafficSummary")]
Run = Annotated[dict[str, Any], Owned("services.simulations.schemas:Run")]
RecordedTask = Annotated[dict[str, Any], Owned("services.simulations.schemas:RecordedTask")]
RecordedEnvironment = Annotated[dict[str, Any], Owned("services.simulations.schemas:RecordedEnvironment")]


class Targets(TypedDict):
    documents: list[Target]


class Count(TypedDict):
    count: int


class DocumentsPage(TypedDict):
    documents: list[Document]
    next: str | None


class ListedDocument(TypedDict):
    id: str
    title: str
    note: str | None
    priority: float
    productId: str
    updatedAt: str


class ListedDocuments(TypedDict):
    documents: list[ListedDocument]


class LastChange(TypedDict):
    lastChangedAt: str | None


class DocumentText(TypedDict):
    id: str
    content: str


class DocumentsTexts(TypedDict):
    documents: list[DocumentText]


class IndexedAt(TypedDict):
    id: str
    lastIndexedAt: str


class Detached(TypedDict):
    # How many documents changed.
    documents: int


class ResolvedDomain(TypedDict):
    id: str
    domain: str


class ResolvedDomains(TypedDict):
    domains: list[ResolvedDomain]


class HostDomain(TypedDict):
    id: str
    domain: str
    appId: str
    verified: bool


class HostDomains(TypedDict):
    domains: list[HostDomain]


class RouteAtUrl(TypedDict):
    url: str
    appId: str
    routeId: str
    path: str


class RoutesAtUrls(TypedDict):
    routes: list[RouteAtUrl]


class EdgeHost(TypedDict):
    domainId: str
    organizationId: str
    appId: str
    hostname: str
    type: str
    origin: str | None
    version: str


class EdgeSite(TypedDict):
    appId: str
    name: str
    config: JsonObject
    baseUrl: str
    version: str
    # `[[path, targetId], ...]`, as PostgreSQL wrote them.
    routes: list[list[str]]


class EdgePage(TypedDict):
    path: str
    baseUrl: str
    document: Document


class AppVersions(TypedDict):
    # appId -> version
    versions: dict[str, str]


class Change(TypedDict):
    position: int
    # The event as on the part's stream.
    event: JsonObject


class Changes(TypedDict):
    changes: list[Change]
    # Whether the outbox still held every change after the position asked for.
    complete: bool


class Competitor(TypedDict):
    id: str
    name: str
    aliases: list[str]
    domains: list[str]


class CompetitorSet(TypedDict):
    version: int
    competitors: list[Competitor]


class Prompts(TypedDict):
    items: list[Prompt]


class PromptsPage(TypedDict):
    items: list[Prompt]
    next: str | None


@dataclass(frozen=True)
class Text:
    """An answer passed on as written (an agent file, a page's markdown), as its public route answers it."""

    media_types: tuple[str, ...]


AGENT_TEXT = Text(("text/plain", "text/markdown", "application/xml"))
