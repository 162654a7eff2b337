"""What the apps service asks of other parts: documents from the content service
(docs/architecture.md, "Internal contracts between parts"), through its declared client.

Each call is made as this service, for the caller's organization, so another part can never
answer with another organization's data.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from libs.common.internal_token import Caller, service_caller
from libs.common.state import HTTP, SETTINGS, caller_of
from libs.contract.clients import ContentClient


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
