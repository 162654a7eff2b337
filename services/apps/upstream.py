"""What the apps service asks of other parts: documents from the content service
(docs/architecture.md, "Internal contracts between parts").

Each call is made as this service, for the caller's organization, so another part can never
answer with another organization's data.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from libs.common.internal_token import Caller, service_caller
from libs.common.keys import HTTP, SETTINGS, caller_of


def _as_service(request: web.Request) -> Caller:
    caller = caller_of(request)
    return service_caller(request.app[SETTINGS].name, caller.org, caller.request_id)


async def documents_by_id(request: web.Request, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The live documents of the caller's organization among `ids`, as route targets, by id."""
    if not ids:
        return {}
    url = f"{request.app[SETTINGS].content_url}/internal/documents/lookup"
    answer = await request.app[HTTP].call("POST", url, _as_service(request), json={"ids": sorted(set(ids))})
    return {document["id"]: document for document in answer["documents"]}


async def product_documents(request: web.Request, product_id: str, status: str) -> list[dict[str, Any]]:
    """A product's live documents with `status`, as route targets."""
    url = f"{request.app[SETTINGS].content_url}/internal/products/{product_id}/documents?status={status}"
    answer = await request.app[HTTP].call("GET", url, _as_service(request))
    documents: list[dict[str, Any]] = answer["documents"]
    return documents
