"""Endpoints other parts call, with the internal token (docs/architecture.md, "Internal contracts")."""

from __future__ import annotations

from aiohttp import web

from libs.common.changes import changes_answer
from libs.common.db import cursor, transaction
from libs.common.encoding import json_response, raw_json_response
from libs.common.errors import NotFound
from libs.common.schemas import load_endpoint_body, load_endpoint_query
from libs.common.state import DB_POOL, caller_of
from libs.contract import internal
from libs.contract import internal_bodies as b
from services.content.domains import DomainChange
from services.content.editing import edit_document
from services.content.locations import locate
from services.content.queries import attachments, documents
from services.content.queries.outbox import CONTENT_OUTBOX
from services.content.shapes import DOCUMENT


async def internal_documents_lookup(request: web.Request) -> web.Response:
    """POST /internal/documents/lookup: the live documents among `ids` of the caller's organization, as targets."""
    data = await load_endpoint_body(request, internal.DOCUMENTS_LOOKUP)
    async with cursor(request.app[DB_POOL]) as cur:
        body = await documents.lookup_targets(cur, caller_of(request).org.id, data["ids"])
    return raw_json_response(body)


async def internal_targets(request: web.Request) -> web.Response:
    """GET /internal/targets: a page of the products' live documents with a status, as targets, in path order."""
    query = load_endpoint_query(request, internal.TARGETS)
    after = (query["after_path"], query["after_id"]) if "after_id" in query else None
    async with cursor(request.app[DB_POOL]) as cur:
        body = await documents.product_targets(
            cur, caller_of(request).org.id, query["product_id"], query["status"], after, query["limit"]
        )
    return raw_json_response(body)


async def internal_targets_count(request: web.Request) -> web.Response:
    """POST /internal/targets/count: how many of the products' live documents have a status (among `ids`)."""
    data = await load_endpoint_body(request, internal.TARGETS_COUNT)
    async with cursor(request.app[DB_POOL]) as cur:
        count = await documents.count_targets(
            cur, caller_of(request).org.id, data["product_ids"], data["status"], data.get("ids")
        )
    answer: b.Count = {"count": count}
    return json_response(answer)


async def internal_document_get(request: web.Request) -> web.Response:
    """GET /internal/documents/{id}: the full document, deleted or not, of the caller's organization."""
    async with cursor(request.app[DB_POOL]) as cur:
        row = await documents.get_document(cur, caller_of(request).org.id, request.match_info["id"], with_deleted=True)
    if row is None:
        raise NotFound("no such document")
    answer: b.Document = DOCUMENT.of(row)
    return json_response(answer)


async def internal_organization_documents(request: web.Request) -> web.Response:
    """GET /internal/organizations/{orgId}/documents: a page of the organization's live documents, in id order."""
    query = load_endpoint_query(request, internal.ORGANIZATION_DOCUMENTS)
    organization_id = caller_of(request).org.id
    if request.match_info["orgId"].lower() != organization_id:
        raise NotFound("organization not found")
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await documents.organization_documents(cur, organization_id, query.get("after"), query["limit"])
    next_after = str(rows[-1]["id"]) if len(rows) == query["limit"] else None
    answer: b.DocumentsPage = {"documents": [DOCUMENT.of(row) for row in rows], "next": next_after}
    return json_response(answer)


async def internal_documents_listed(request: web.Request) -> web.Response:
    """POST /internal/documents/listed: the published, indexable live documents among `ids`, listed for agents."""
    data = await load_endpoint_body(request, internal.DOCUMENTS_LISTED)
    async with cursor(request.app[DB_POOL]) as cur:
        body = await documents.listed_documents(cur, caller_of(request).org.id, data["ids"])
    return raw_json_response(body)


async def internal_documents_last_change(request: web.Request) -> web.Response:
    """GET /internal/documents/last-change: when a document of the caller's organization last changed."""
    async with cursor(request.app[DB_POOL]) as cur:
        last = await documents.last_change(cur, caller_of(request).org.id)
    answer: b.LastChange = {"lastChangedAt": None if last is None else last.isoformat()}
    return json_response(answer)


async def internal_documents_text(request: web.Request) -> web.Response:
    """POST /internal/documents/text: the markdown of the published, indexable live documents among `ids`."""
    data = await load_endpoint_body(request, internal.DOCUMENTS_TEXT)
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await documents.documents_text(cur, caller_of(request).org.id, data["ids"])
    answer: b.DocumentsTexts = {"documents": [{"id": row["id"], "content": row["content"]} for row in rows]}
    return json_response(answer)


async def internal_document_indexed(request: web.Request) -> web.Response:
    """POST /internal/documents/{id}/indexed: record when the search index took the document in."""
    data = await load_endpoint_body(request, internal.DOCUMENT_INDEXED)
    async with cursor(request.app[DB_POOL]) as cur:
        row = await documents.set_last_indexed(
            cur, caller_of(request).org.id, request.match_info["id"], data["last_indexed_at"]
        )
    if row is None:
        raise NotFound("no such document")
    answer: b.IndexedAt = {"id": row["id"], "lastIndexedAt": row["last_indexed_at"]}
    return json_response(answer)


async def internal_changes(request: web.Request) -> web.Response:
    """GET /internal/changes: content's changes after a stream position, for a consumer whose
    stream lost entries (libs/common/catch_up.py)."""
    return await changes_answer(request, CONTENT_OUTBOX)


async def internal_domains_withdrawn(request: web.Request) -> web.Response:
    """POST /internal/domains/withdrawn: detach domains the apps service withdrew (released, deleted on
    their own, of a purged app) from the caller's organization's documents, each as an edit of its own
    (address and event follow); how many changed."""
    data = await load_endpoint_body(request, internal.DOMAINS_WITHDRAWN)
    withdrawn = DomainChange(detach=tuple(data["ids"]))
    async with transaction(request.app[DB_POOL]) as cur:
        rows = await documents.lock_attached(cur, caller_of(request).org.id, data["ids"])
        for row in rows:
            # An address on a withdrawn canonical domain is no longer the organization's to give.
            canonical = await attachments.canonical(cur, str(row["id"]))
            stale = (
                canonical is not None
                and canonical[0] in withdrawn.detach
                and row["source_url"] == locate(row["file_path"], canonical[1]).source_url
            )
            await edit_document(cur, row, {"source_url": None} if stale else {}, withdrawn)
    answer: b.Detached = {"documents": len(rows)}
    return json_response(answer)
