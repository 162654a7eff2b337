"""Typed clients of the internal endpoints (libs/contract/internal.py): the only way a part calls
another, so every address it reaches, the method it uses, the body it sends and the answer it reads
are the declared ones (libs/contract/internal_bodies.py).

Each client is bound to the callee's base URL and the process's `InternalClient`; every call is
made as the given caller (a service acting for an organization), answers the callee's JSON as its
declared type, and raises the error the callee answered (`libs.common.http_client.upstream_error`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from libs.common.errors import NotFound
from libs.common.http_client import InternalClient, RawResponse, upstream_error
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Caller, service_caller
from libs.contract import internal
from libs.contract import internal_bodies as b
from libs.contract.internal import Endpoint


class ContentClient:
    """What the apps and search services ask of the content service."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def lookup_documents(self, caller: Caller, ids: Sequence[str]) -> list[b.Target]:
        """The live documents of the caller's organization among `ids` (at most 500), as route targets."""
        body = {"ids": list(ids)}
        answer: b.Targets = await self._http.request(internal.DOCUMENTS_LOOKUP, self._base_url, caller, body=body)
        return answer["documents"]

    async def targets(
        self, caller: Caller, product_ids: Sequence[str], status: str, after: tuple[str, str] | None, limit: int
    ) -> list[b.Target]:
        """The first `limit` live documents of the products with `status`, as route targets, in path
        order and then id, after the document (path, id) `after`."""
        query: dict[str, Any] = {"product_id": list(product_ids), "status": status, "limit": limit}
        if after is not None:
            query |= {"after_path": after[0], "after_id": after[1]}
        answer: b.Targets = await self._http.request(internal.TARGETS, self._base_url, caller, query=query)
        return answer["documents"]

    async def count_targets(self, caller: Caller, product_ids: Sequence[str], status: str, among: str | None) -> int:
        """How many live documents of the products have `status`; with `among` (a JSON array of ids,
        as written), how many of those ids do."""
        body: dict[str, Any] = {"product_ids": list(product_ids), "status": status}
        if among is not None:
            body["ids"] = orjson.Fragment(among)
        answer: b.Count = await self._http.request(internal.TARGETS_COUNT, self._base_url, caller, body=body)
        return answer["count"]

    async def document(self, caller: Caller, document_id: str) -> b.Document:
        """The full document of the caller's organization, also when deleted; `NotFound` when unknown."""
        document: b.Document = await self._http.request(internal.DOCUMENT, self._base_url, caller, id=document_id)
        return document

    async def organization_documents(
        self, caller: Caller, organization_id: str, after: str | None, limit: int
    ) -> tuple[list[b.Document], str | None]:
        """A page of the organization's live documents in id order after `after`, and the next `after`."""
        query = {"limit": limit, "after": after or None}
        page: b.DocumentsPage = await self._http.request(
            internal.ORGANIZATION_DOCUMENTS, self._base_url, caller, query=query, orgId=organization_id
        )
        return page["documents"], page["next"]

    async def listed_documents(self, caller: Caller, ids: str) -> list[b.ListedDocument]:
        """The published, indexable live documents among `ids` (a JSON array of at most 10,000, as
        written), in no set order."""
        body = {"ids": orjson.Fragment(ids)}
        answer: b.ListedDocuments = await self._http.request(
            internal.DOCUMENTS_LISTED, self._base_url, caller, body=body
        )
        return answer["documents"]

    async def last_change(self, caller: Caller) -> str | None:
        """When a document of the caller's organization last changed (deleted ones too); None without any."""
        answer: b.LastChange = await self._http.request(internal.DOCUMENTS_LAST_CHANGE, self._base_url, caller)
        return answer["lastChangedAt"]

    async def documents_text(self, caller: Caller, ids: Sequence[str]) -> dict[str, str]:
        """id -> markdown content of the published, indexable live documents among `ids` (at most 50)."""
        body = {"ids": list(ids)}
        answer: b.DocumentsTexts = await self._http.request(internal.DOCUMENTS_TEXT, self._base_url, caller, body=body)
        return {document["id"]: document["content"] for document in answer["documents"]}

    async def domains_withdrawn(self, caller: Caller, ids: Sequence[str]) -> int:
        """Detach withdrawn domains (released, deleted on their own, of a purged app; at most 500 ids) from
        the caller's organization's documents; how many documents changed."""
        body = {"ids": list(ids)}
        answer: b.Detached = await self._http.request(internal.DOMAINS_WITHDRAWN, self._base_url, caller, body=body)
        return answer["documents"]

    async def mark_indexed(self, caller: Caller, document_id: str, indexed_at: datetime) -> None:
        """Report when the search index last stored the document; `NotFound` when it is gone."""
        body = {"last_indexed_at": indexed_at}
        await self._http.request(internal.DOCUMENT_INDEXED, self._base_url, caller, body=body, id=document_id)


class AppsClient:
    """What the content, traffic, simulations and analytics services ask of the apps service."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def resolve_domains(self, caller: Caller, ids: Sequence[str]) -> dict[str, str]:
        """id -> hostname of the caller's organization's live domains among `ids` (at most 500)."""
        body = {"ids": list(ids)}
        answer: b.ResolvedDomains = await self._http.request(
            internal.DOMAINS_RESOLVE, self._base_url, caller, body=body
        )
        return {domain["id"]: domain["domain"] for domain in answer["domains"]}

    async def domains_by_host(self, caller: Caller, hosts: Sequence[str]) -> dict[str, b.HostDomain]:
        """hostname -> App domain of the caller's organization among `hosts` (at most 500), verified or
        not; a hostname no App of theirs claims is absent."""
        body = {"hosts": list(hosts)}
        answer: b.HostDomains = await self._http.request(internal.DOMAINS_BY_HOST, self._base_url, caller, body=body)
        return {domain["domain"]: domain for domain in answer["domains"]}

    async def routes_by_url(self, caller: Caller, urls: Sequence[str]) -> dict[str, b.RouteAtUrl]:
        """url -> the route of the caller's organization's Apps serving each of `urls` (at most 500) on a
        verified domain; a URL no route serves is absent."""
        body = {"urls": list(urls)}
        answer: b.RoutesAtUrls = await self._http.request(internal.ROUTES_BY_URL, self._base_url, caller, body=body)
        return {route["url"]: route for route in answer["routes"]}

    async def published(self, caller: Caller, app_id: str, path: str, user_agent: str) -> RawResponse:
        """The document the caller's organization's App publishes at `path` of its site, as an agent
        gets it (a 4xx answer included: what the agent meets); a failure of the apps part raises."""
        query = internal.APP_PUBLISHED.query_of({"path": path})
        url = internal.APP_PUBLISHED.url(self._base_url, query, appId=app_id)
        headers = {INTERNAL_TOKEN_HEADER: self._http.token(caller), "User-Agent": user_agent}
        if caller.request_id:
            headers["X-Request-Id"] = caller.request_id
        answer = await self._http.send("GET", url, headers=headers)
        if answer.status >= 500:
            raise upstream_error(answer)
        return answer


class GatewayClient:
    """What the analytics part asks of the gateway, in its background work only (a request the
    gateway sent never waits on a call back to it)."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def product_brand(self, caller: Caller, product_id: str) -> b.Product:
        """A live product of the caller's organization with its `brand` (name, aliases, domains);
        `NotFound` when it is gone."""
        product: b.Product = await self._http.request(
            internal.PRODUCT_BRAND, self._base_url, caller, productId=product_id
        )
        return product


class PersonasClient:
    """What the analytics part asks of the personas part: competitors and tracked prompts."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def competitor_set(self, caller: Caller, product_id: str) -> b.CompetitorSet:
        """The product's live competitors and the set's version."""
        found: b.CompetitorSet = await self._http.request(
            internal.COMPETITOR_SET, self._base_url, caller, productId=product_id
        )
        return found

    async def product_prompts(self, caller: Caller, product_id: str) -> list[b.Prompt]:
        """The product's prompts that are not archived (active and paused), oldest first."""
        answer: b.Prompts = await self._http.request(
            internal.PRODUCT_PROMPTS, self._base_url, caller, productId=product_id
        )
        return answer["items"]

    async def scheduled_prompts(
        self, caller: Caller, cadence: str, after: str | None, limit: int
    ) -> tuple[list[b.Prompt], str | None]:
        """A page of every organization's active prompts of `cadence`, by id after `after`, and the
        `after` of the next page (None at the end)."""
        query = {"cadence": cadence, "limit": limit, "after": after or None}
        answer: b.PromptsPage = await self._http.request(
            internal.SCHEDULED_PROMPTS, self._base_url, caller, query=query
        )
        return answer["items"], answer["next"]

    async def prompt(self, caller: Caller, prompt_id: str) -> b.Prompt:
        """A prompt of the caller's organization as the API answers it; `NotFound` when unknown."""
        found: b.Prompt = await self._http.request(internal.PROMPT, self._base_url, caller, promptId=prompt_id)
        return found


class TrafficClient:
    """What the analytics part asks of AI traffic: its sums over a period."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def summary(self, caller: Caller, query: Sequence[tuple[str, str]]) -> b.TrafficSummary:
        """The caller organization's AI-traffic summary (`GET /api/v1/ai-traffic/summary`'s query and answer)."""
        found: b.TrafficSummary = await self._http.request(
            internal.TRAFFIC_SUMMARY, self._base_url, caller, query=list(query)
        )
        return found


class EdgeAppsClient:
    """What the public edge asks of the apps service (docs/architecture.md, "The edge")."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def host(self, caller: Caller, hostname: str) -> b.EdgeHost | None:
        """The verified domain of a live App holding `hostname`, or None."""
        try:
            host: b.EdgeHost = await self._http.request(internal.EDGE_HOST, self._base_url, caller, hostname=hostname)
        except NotFound:
            return None
        return host

    async def site(self, caller: Caller, app_id: str) -> b.EdgeSite:
        """The App's name, config, primary URL, routes and version."""
        site: b.EdgeSite = await self._http.request(internal.EDGE_SITE, self._base_url, caller, appId=app_id)
        return site

    async def page(self, caller: Caller, app_id: str, path: str) -> b.EdgePage | None:
        """The published document routed at `path`, with the App's primary URL, or None."""
        try:
            page: b.EdgePage = await self._http.request(
                internal.EDGE_PAGE, self._base_url, caller, query={"path": path}, appId=app_id
            )
        except NotFound:
            return None
        return page

    async def file(self, caller: Caller, name: str, app_id: str) -> RawResponse:
        """One of the App's agent files (`llms.txt`, `llms-full.txt`, `sitemap.xml`) as apps answered it."""
        endpoint = {"llms.txt": internal.EDGE_LLMS_TXT, "llms-full.txt": internal.EDGE_LLMS_FULL_TXT}.get(
            name, internal.EDGE_SITEMAP
        )
        headers = {INTERNAL_TOKEN_HEADER: self._http.token(caller)}
        if caller.request_id:
            headers["X-Request-Id"] = caller.request_id
        return await self._http.send("GET", endpoint.url(self._base_url, appId=app_id), headers=headers)

    async def versions(self, caller: Caller, app_ids: Sequence[str]) -> dict[str, str]:
        """appId -> version of the live Apps among `app_ids` (at most 500)."""
        body = {"app_ids": list(app_ids)}
        answer: b.AppVersions = await self._http.request(internal.EDGE_VERSIONS, self._base_url, caller, body=body)
        return answer["versions"]


@dataclass(frozen=True)
class Changes:
    """A page of changes: (position, event) in position order, and whether none was pruned."""

    events: list[tuple[int, b.JsonObject]]
    complete: bool


async def read_changes(http: InternalClient, base_url: str, endpoint: Endpoint, reader: str, after: int) -> Changes:
    """The first page of the changes after `after` from the part at `base_url` (one of its changes
    endpoints: libs/common/changes.py), as `reader`."""
    query = {"after": after, "limit": b.CHANGES_PAGE_MAX}
    page: b.Changes = await http.request(endpoint, base_url, service_caller(reader), query=query)
    return Changes([(change["position"], change["event"]) for change in page["changes"]], page["complete"])
