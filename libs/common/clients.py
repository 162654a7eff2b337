"""Typed clients of the internal endpoints (libs/contract/internal.py): the only way a part calls
another, so every address it reaches, and the method it uses, is a declared one.

Each client is bound to the callee's base URL and the process's `InternalClient`; every call is
made as the given caller (a service acting for an organization), answers the callee's JSON, and
raises the error the callee answered (`libs.common.http_client.upstream_error`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson

from libs.common.errors import NotFound
from libs.common.http_client import InternalClient, RawResponse, upstream_error
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Caller
from libs.contract import internal

Document = dict[str, Any]


class ContentClient:
    """What the apps and search services ask of the content service."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def lookup_documents(self, caller: Caller, ids: Sequence[str]) -> list[Document]:
        """The live documents of the caller's organization among `ids` (at most 500), as route targets."""
        answer = await self._http.request(internal.DOCUMENTS_LOOKUP, self._base_url, caller, json={"ids": list(ids)})
        documents: list[Document] = answer["documents"]
        return documents

    async def targets(
        self, caller: Caller, product_ids: Sequence[str], status: str, after: tuple[str, str] | None, limit: int
    ) -> list[Document]:
        """The first `limit` live documents of the products with `status`, as route targets, in path
        order and then id, after the document (path, id) `after`."""
        query = [*(("productId", product_id) for product_id in product_ids), ("status", status), ("limit", str(limit))]
        if after is not None:
            query += [("afterPath", after[0]), ("afterId", after[1])]
        answer = await self._http.request(internal.TARGETS, self._base_url, caller, query=query)
        documents: list[Document] = answer["documents"]
        return documents

    async def count_targets(self, caller: Caller, product_ids: Sequence[str], status: str, among: str | None) -> int:
        """How many live documents of the products have `status`; with `among` (a JSON array of ids,
        as written), how many of those ids do."""
        body: dict[str, Any] = {"productIds": list(product_ids), "status": status}
        if among is not None:
            body["ids"] = orjson.Fragment(among)
        answer = await self._http.request(internal.TARGETS_COUNT, self._base_url, caller, json=body)
        count: int = answer["count"]
        return count

    async def document(self, caller: Caller, document_id: str) -> Document:
        """The full document of the caller's organization, also when deleted; `NotFound` when unknown."""
        document: Document = await self._http.request(internal.DOCUMENT, self._base_url, caller, id=document_id)
        return document

    async def organization_documents(
        self, caller: Caller, organization_id: str, after: str | None, limit: int
    ) -> tuple[list[Document], str | None]:
        """A page of the organization's live documents in id order after `after`, and the next `after`."""
        query = [("limit", str(limit)), *([("after", after)] if after else [])]
        page = await self._http.request(
            internal.ORGANIZATION_DOCUMENTS, self._base_url, caller, query=query, orgId=organization_id
        )
        return page["documents"], page["next"]

    async def listed_documents(self, caller: Caller, ids: str) -> list[Document]:
        """The published, indexable live documents among `ids` (a JSON array of at most 10,000, as
        written), each as `{id, title, note, priority, productId, updatedAt}`, in no set order."""
        body = {"ids": orjson.Fragment(ids)}
        answer = await self._http.request(internal.DOCUMENTS_LISTED, self._base_url, caller, json=body)
        documents: list[Document] = answer["documents"]
        return documents

    async def last_change(self, caller: Caller) -> str | None:
        """When a document of the caller's organization last changed (deleted ones too); None without any."""
        answer = await self._http.request(internal.DOCUMENTS_LAST_CHANGE, self._base_url, caller)
        last: str | None = answer["lastChangedAt"]
        return last

    async def documents_text(self, caller: Caller, ids: Sequence[str]) -> dict[str, str]:
        """id -> markdown content of the published, indexable live documents among `ids` (at most 50)."""
        answer = await self._http.request(internal.DOCUMENTS_TEXT, self._base_url, caller, json={"ids": list(ids)})
        return {document["id"]: document["content"] for document in answer["documents"]}

    async def domains_withdrawn(self, caller: Caller, ids: Sequence[str]) -> int:
        """Detach withdrawn domains (released, deleted on their own, of a purged app; at most 500 ids) from
        the caller's organization's documents; how many documents changed."""
        answer = await self._http.request(internal.DOMAINS_WITHDRAWN, self._base_url, caller, json={"ids": list(ids)})
        detached: int = answer["documents"]
        return detached

    async def mark_indexed(self, caller: Caller, document_id: str, indexed_at: datetime) -> None:
        """Report when the search index last stored the document; `NotFound` when it is gone."""
        body = {"lastIndexedAt": indexed_at}
        await self._http.request(internal.DOCUMENT_INDEXED, self._base_url, caller, json=body, id=document_id)


class AppsClient:
    """What the content, traffic, simulations and analytics services ask of the apps service."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def resolve_domains(self, caller: Caller, ids: Sequence[str]) -> dict[str, str]:
        """id -> hostname of the caller's organization's live domains among `ids` (at most 500)."""
        answer = await self._http.request(internal.DOMAINS_RESOLVE, self._base_url, caller, json={"ids": list(ids)})
        return {domain["id"]: domain["domain"] for domain in answer["domains"]}

    async def domains_by_host(self, caller: Caller, hosts: Sequence[str]) -> dict[str, dict[str, Any]]:
        """hostname -> `{id, domain, appId, verified}` of the caller's organization's App domains among
        `hosts` (at most 500), verified or not; a hostname no App of theirs claims is absent."""
        answer = await self._http.request(internal.DOMAINS_BY_HOST, self._base_url, caller, json={"hosts": list(hosts)})
        return {domain["domain"]: domain for domain in answer["domains"]}

    async def routes_by_url(self, caller: Caller, urls: Sequence[str]) -> dict[str, dict[str, Any]]:
        """url -> `{url, appId, routeId, path}`: the route of the caller's organization's Apps serving each
        of `urls` (at most 500) on a verified domain; a URL no route serves is absent."""
        answer = await self._http.request(internal.ROUTES_BY_URL, self._base_url, caller, json={"urls": list(urls)})
        return {route["url"]: route for route in answer["routes"]}

    async def published(self, caller: Caller, app_id: str, path: str, user_agent: str) -> RawResponse:
        """The document the caller's organization's App publishes at `path` of its site, as an agent
        gets it (a 4xx answer included: what the agent meets); a failure of the apps part raises."""
        url = internal.APP_PUBLISHED.url(self._base_url, [("path", path)], appId=app_id)
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

    async def product_brand(self, caller: Caller, product_id: str) -> dict[str, Any]:
        """A live product of the caller's organization with its `brand` (name, aliases, domains);
        `NotFound` when it is gone."""
        product: dict[str, Any] = await self._http.request(
            internal.PRODUCT_BRAND, self._base_url, caller, productId=product_id
        )
        return product


class PersonasClient:
    """What the analytics part asks of the personas part: competitors and tracked prompts."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def competitor_set(self, caller: Caller, product_id: str) -> dict[str, Any]:
        """`{version, competitors: [{id, name, aliases, domains}]}`: the product's live competitors."""
        found: dict[str, Any] = await self._http.request(
            internal.COMPETITOR_SET, self._base_url, caller, productId=product_id
        )
        return found

    async def product_prompts(self, caller: Caller, product_id: str) -> list[dict[str, Any]]:
        """The product's prompts that are not archived (active and paused), oldest first."""
        answer = await self._http.request(internal.PRODUCT_PROMPTS, self._base_url, caller, productId=product_id)
        found: list[dict[str, Any]] = answer["items"]
        return found

    async def scheduled_prompts(
        self, caller: Caller, cadence: str, after: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of every organization's active prompts of `cadence`, by id after `after`, and the
        `after` of the next page (None at the end)."""
        query = [("cadence", cadence), ("limit", str(limit)), *([("after", after)] if after else [])]
        answer = await self._http.request(internal.SCHEDULED_PROMPTS, self._base_url, caller, query=query)
        return answer["items"], answer["next"]

    async def prompt(self, caller: Caller, prompt_id: str) -> dict[str, Any]:
        """A prompt of the caller's organization as the API answers it; `NotFound` when unknown."""
        found: dict[str, Any] = await self._http.request(internal.PROMPT, self._base_url, caller, promptId=prompt_id)
        return found


class TrafficClient:
    """What the analytics part asks of AI traffic: its sums over a period."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def summary(self, caller: Caller, query: Sequence[tuple[str, str]]) -> dict[str, Any]:
        """The caller organization's AI-traffic summary (`GET /api/v1/ai-traffic/summary`'s query and answer)."""
        found: dict[str, Any] = await self._http.request(
            internal.TRAFFIC_SUMMARY, self._base_url, caller, query=list(query)
        )
        return found


class EdgeAppsClient:
    """What the public edge asks of the apps service (docs/architecture.md, "The edge")."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def host(self, caller: Caller, hostname: str) -> dict[str, Any] | None:
        """The verified domain of a live App holding `hostname`, or None."""
        try:
            host: dict[str, Any] = await self._http.request(
                internal.EDGE_HOST, self._base_url, caller, hostname=hostname
            )
        except NotFound:
            return None
        return host

    async def site(self, caller: Caller, app_id: str) -> dict[str, Any]:
        """The App's `{appId, name, config, baseUrl, routes: [[path, targetId], ...]}`."""
        site: dict[str, Any] = await self._http.request(internal.EDGE_SITE, self._base_url, caller, appId=app_id)
        return site

    async def page(self, caller: Caller, app_id: str, path: str) -> dict[str, Any] | None:
        """`{path, baseUrl, document}` of the published document routed at `path`, or None."""
        try:
            page: dict[str, Any] = await self._http.request(
                internal.EDGE_PAGE, self._base_url, caller, query=[("path", path)], appId=app_id
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
        answer = await self._http.request(
            internal.EDGE_VERSIONS, self._base_url, caller, json={"appIds": list(app_ids)}
        )
        versions: dict[str, str] = answer["versions"]
        return versions
