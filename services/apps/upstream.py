"""What the apps service asks of other parts: documents from the content service
(docs/architecture.md, "Internal contracts between parts").

Each call is made as this service, for the caller's organization, so another part can never
answer with another organization's data.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import orjson
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


async def targets(
    request: web.Request, product_ids: list[str], status: str, after: tuple[str, str] | None, limit: int
) -> list[dict[str, Any]]:
    """The first `limit` live documents of the products with `status`, as route targets, in path
    order and then id, after the document (path, id) `after`."""
    query = [*(("productId", product_id) for product_id in product_ids), ("status", status), ("limit", str(limit))]
    if after is not None:
        query += [("afterPath", after[0]), ("afterId", after[1])]
    url = f"{request.app[SETTINGS].content_url}/internal/targets?{urlencode(query)}"
    answer = await request.app[HTTP].call("GET", url, _as_service(request))
    documents: list[dict[str, Any]] = answer["documents"]
    return documents


async def count_targets(request: web.Request, product_ids: list[str], status: str, among: str | None) -> int:
    """How many live documents of the products have `status`; with `among` (a JSON array of ids, as
    written), how many of those ids do."""
    body: dict[str, Any] = {"productIds": product_ids, "status": status}
    if among is not None:
        body["ids"] = orjson.Fragment(among)
    url = f"{request.app[SETTINGS].content_url}/internal/targets/count"
    answer = await request.app[HTTP].call("POST", url, _as_service(request), json=body)
    count: int = answer["count"]
    return count
