"""Endpoints other parts call, with the internal token (docs/architecture.md, "Internal contracts")."""

from __future__ import annotations

from aiohttp import web

from libs.common.changes import changes_answer
from libs.common.db import cursor
from libs.common.encoding import json_response, raw_json_response
from libs.common.errors import NotFound
from libs.common.schemas import load_json, load_query
from libs.common.state import DB_POOL, caller_of
from services.content.queries import documents
from services.content.queries.outbox import CONTENT_OUTBOX
from services.content.schemas.internal import (
    DocumentLookup,
    Indexed,
    OrganizationDocumentsQuery,
    TargetCount,
    TargetsQuery,
)

DOCUMENT_LOOKUP = DocumentLookup()
TARGETS_QUERY = TargetsQuery()
TARGET_COUNT = TargetCount()
ORGANIZATION_DOCUMENTS_QUERY = OrganizationDocumentsQuery()
INDEXED = Indexed()


async def internal_documents_lookup(request: web.Request) -> web.Response:
    """POST /internal/documents/lookup: the live documents among `ids` of the caller's organization, as targets."""
    data = await load_json(request, DOCUMENT_LOOKUP)
    async with cursor(request.app[DB_POOL]) as cur:
        body = await documents.lookup_targets(cur, caller_of(request).org.id, data["ids"])
    return raw_json_response(body)


async def internal_targets(request: web.Request) -> web.Response:
    """GET /internal/targets: a page of the products' live documents with a status, as targets, in path order."""
    query = load_query(request, TARGETS_QUERY)
    after = (query["after_path"], query["after_id"]) if "after_id" in query else None
    async with cursor(request.app[DB_POOL]) as cur:
        body = await documents.product_targets(
            cur, caller_of(request).org.id, query["product_id"], query["status"], after, query["limit"]
        )
    return raw_json_response(body)


async def internal_targets_count(request: web.Request) -> web.Response:
    """POST /internal/targets/count: how many of the products' live documents have a status (among `ids`)."""
    data = await load_json(request, TARGET_COUNT)
    async with cursor(request.app[DB_POOL]) as cur:
        count = await documents.count_targets(
            cur, caller_of(request).org.id, data["product_ids"], data["status"], data.get("ids")
        )
    return json_response({"count": count})


async def internal_document_get(request: web.Request) -> web.Response:
    """GET /internal/documents/{id}: the full document, deleted or not, of the caller's organization."""
    async with cursor(request.app[DB_POOL]) as cur:
        row = await documents.get_document(cur, caller_of(request).org.id, request.match_info["id"], with_deleted=True)
    if row is None:
        raise NotFound("no such document")
    return json_response(documents.document_from_row(row))


async def internal_organization_documents(request: web.Request) -> web.Response:
    """GET /internal/organizations/{orgId}/documents: a page of the organization's live documents, in id order."""
    query = load_query(request, ORGANIZATION_DOCUMENTS_QUERY)
    organization_id = caller_of(request).org.id
    if request.match_info["orgId"].lower() != organization_id:
        raise NotFound("organization not found")
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await documents.organization_documents(cur, organization_id, query.get("after"), query["limit"])
    next_after = str(rows[-1]["id"]) if len(rows) == query["limit"] else None
    return json_response({"documents": [documents.document_from_row(row) for row in rows], "next": next_after})


async def internal_document_indexed(request: web.Request) -> web.Response:
    """POST /internal/documents/{id}/indexed: record when the search index took the document in."""
    data = await load_json(request, INDEXED)
    async with cursor(request.app[DB_POOL]) as cur:
        row = await documents.set_last_indexed(
            cur, caller_of(request).org.id, request.match_info["id"], data["last_indexed_at"]
        )
    if row is None:
        raise NotFound("no such document")
    return json_response({"id": row["id"], "lastIndexedAt": row["last_indexed_at"]})


async def internal_changes(request: web.Request) -> web.Response:
    """GET /internal/changes: content's changes after a stream position, for a consumer whose
    stream lost entries (libs/common/catch_up.py)."""
    return await changes_answer(request, CONTENT_OUTBOX)
