"""Typed clients of the internal endpoints (libs/contract/internal.py): the only way a part calls
another, so every address it reaches is a declared one.

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
from libs.common.http_client import InternalClient, RawResponse
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
        answer = await self._http.call(
            "POST", internal.DOCUMENTS_LOOKUP.url(self._base_url), caller, json={"ids": list(ids)}
        )
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
        answer = await self._http.call("GET", internal.TARGETS.url(self._base_url, query), caller)
        documents: list[Document] = answer["documents"]
        return documents

    async def count_targets(self, caller: Caller, product_ids: Sequence[str], status: str, among: str | None) -> int:
        """How many live documents of the products have `status`; with `among` (a JSON array of ids,
        as written), how many of those ids do."""
        body: dict[str, Any] = {"productIds": list(product_ids), "status": status}
        if among is not None:
            body["ids"] = orjson.Fragment(among)
        answer = await self._http.call("POST", internal.TARGETS_COUNT.url(self._base_url), caller, json=body)
        count: int = answer["count"]
        return count

    async def document(self, caller: Caller, document_id: str) -> Document:
        """The full document of the caller's organization, also when deleted; `NotFound` when unknown."""
        document: Document = await self._http.call("GET", internal.DOCUMENT.url(self._base_url, id=document_id), caller)
        return document

    async def organization_documents(
        self, caller: Caller, organization_id: str, after: str | None, limit: int
    ) -> tuple[list[Document], str | None]:
        """A page of the organization's live documents in id order after `after`, and the next `after`."""
        query = [("limit", str(limit)), *([("after", after)] if after else [])]
        url = internal.ORGANIZATION_DOCUMENTS.url(self._base_url, query, orgId=organization_id)
        page = await self._http.call("GET", url, caller)
        return page["documents"], page["next"]

    async def listed_documents(self, caller: Caller, ids: str) -> list[Document]:
        """The published, indexable live documents among `ids` (a JSON array of at most 10,000, as
        written), each as `{id, title, note, priority, productId, updatedAt}`, in no set order."""
        url = internal.DOCUMENTS_LISTED.url(self._base_url)
        answer = await self._http.call("POST", url, caller, json={"ids": orjson.Fragment(ids)})
        documents: list[Document] = answer["documents"]
        return documents

    async def last_change(self, caller: Caller) -> str | None:
        """When a document of the caller's organization last changed (deleted ones too); None without any."""
        answer = await self._http.call("GET", internal.DOCUMENTS_LAST_CHANGE.url(self._base_url), caller)
        last: str | None = answer["lastChangedAt"]
        return last

    async def documents_text(self, caller: Caller, ids: Sequence[str]) -> dict[str, str]:
        """id -> markdown content of the published, indexable live documents among `ids` (at most 50)."""
        url = internal.DOCUMENTS_TEXT.url(self._base_url)
        answer = await self._http.call("POST", url, caller, json={"ids": list(ids)})
        return {document["id"]: document["content"] for document in answer["documents"]}

    async def domains_withdrawn(self, caller: Caller, ids: Sequence[str]) -> int:
        """Detach withdrawn domains (released, deleted on their own, of a purged app; at most 500 ids) from
        the caller's organization's documents; how many documents changed."""
        answer = await self._http.call(
            "POST", internal.DOMAINS_WITHDRAWN.url(self._base_url), caller, json={"ids": list(ids)}
        )
        detached: int = answer["documents"]
        return detached

    async def mark_indexed(self, caller: Caller, document_id: str, indexed_at: datetime) -> None:
        """Report when the search index last stored the document; `NotFound` when it is gone."""
        url = internal.DOCUMENT_INDEXED.url(self._base_url, id=document_id)
        await self._http.call("POST", url, caller, json={"lastIndexedAt": indexed_at})


class AppsClient:
    """What the content service asks of the apps service."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def resolve_domains(self, caller: Caller, ids: Sequence[str]) -> dict[str, str]:
        """id -> hostname of the caller's organization's live domains among `ids` (at most 500)."""
        answer = await self._http.call(
            "POST", internal.DOMAINS_RESOLVE.url(self._base_url), caller, json={"ids": list(ids)}
        )
        return {domain["id"]: domain["domain"] for domain in answer["domains"]}


class EdgeAppsClient:
    """What the public edge asks of the apps service (docs/architecture.md, "The edge")."""

    def __init__(self, http: InternalClient, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    async def host(self, caller: Caller, hostname: str) -> dict[str, Any] | None:
        """The verified domain of a live App holding `hostname`, or None."""
        try:
            host: dict[str, Any] = await self._http.call(
                "GET", internal.EDGE_HOST.url(self._base_url, hostname=hostname), caller
            )
        except NotFound:
            return None
        return host

    async def site(self, caller: Caller, app_id: str) -> dict[str, Any]:
        """The App's `{appId, name, config, baseUrl, routes: [[path, targetId], ...]}`."""
        site: dict[str, Any] = await self._http.call(
            "GET", internal.EDGE_SITE.url(self._base_url, appId=app_id), caller
        )
        return site

    async def page(self, caller: Caller, app_id: str, path: str) -> dict[str, Any] | None:
        """`{path, baseUrl, document}` of the published document routed at `path`, or None."""
        url = internal.EDGE_PAGE.url(self._base_url, [("path", path)], appId=app_id)
        try:
            page: dict[str, Any] = await self._http.call("GET", url, caller)
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
        answer = await self._http.call(
            "POST", internal.EDGE_VERSIONS.url(self._base_url), caller, json={"appIds": list(app_ids)}
        )
        versions: dict[str, str] = answer["versions"]
        return versions
