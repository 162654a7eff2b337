"""What the apps service asks of other parts: documents from the content service
(docs/architecture.md, "Internal contracts between parts"), through its declared client.

Each call is made as this service, for the caller's organization, so another part can never
answer with another organization's data.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from libs.common.clients import ContentClient
from libs.common.internal_token import Caller, service_caller
from libs.common.state import HTTP, SETTINGS, caller_of
from libs.contract import internal_bodies as b


def _content(request: web.Request) -> tuple[ContentClient, Caller]:
    caller = caller_of(request)
    settings = request.app[SETTINGS]
    return ContentClient(request.app[HTTP], settings.content_url), service_caller(
        settings.name, caller.org, caller.request_id
    )


async def documents_by_id(request: web.Request, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The live documents of the caller's organization among `ids`, as route targets, by id."""
    if not ids:
        return {}
    content, as_service = _content(request)
    return {document["id"]: document for document in await content.lookup_documents(as_service, sorted(set(ids)))}


async def targets(
    request: web.Request, product_ids: list[str], status: str, after: tuple[str, str] | None, limit: int
) -> list[dict[str, Any]]:
    """The first `limit` live documents of the products with `status`, as route targets, in path
    order and then id, after the document (path, id) `after`."""
    content, as_service = _content(request)
    return await content.targets(as_service, product_ids, status, after, limit)


async def count_targets(request: web.Request, product_ids: list[str], status: str, among: str | None) -> int:
    """How many live documents of the products have `status`; with `among` (a JSON array of ids, as
    written), how many of those ids do."""
    content, as_service = _content(request)
    return await content.count_targets(as_service, product_ids, status, among)


async def listed_documents(request: web.Request, ids: str) -> list[b.ListedDocument]:
    """The published, indexable live documents of the caller's organization among `ids` (a JSON
    array of at most 10,000, as written), as agents' listings show them."""
    content, as_service = _content(request)
    return await content.listed_documents(as_service, ids)


async def documents_last_change(request: web.Request) -> str | None:
    """When a document of the caller's organization last changed (deleted ones too)."""
    content, as_service = _content(request)
    return await content.last_change(as_service)


async def documents_text(request: web.Request, ids: list[str]) -> dict[str, str]:
    """id -> markdown of the published, indexable live documents among `ids` (at most 50)."""
    content, as_service = _content(request)
    return await content.documents_text(as_service, ids)


async def document(request: web.Request, document_id: str) -> dict[str, Any]:
    """The full document of the caller's organization, also when deleted; `NotFound` when unknown."""
    content, as_service = _content(request)
    return await content.document(as_service, document_id)
