"""Handlers of /api/v1/content: one document by id or path, its fields, priority and domains."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import NotFound, ValidationFailed
from libs.common.etags import check_if_match, versioned_response
from libs.common.schemas import load_json, load_query
from libs.common.state import DB_POOL, caller_of
from services.content import editing
from services.content.domains import DomainChange, resolve_domains
from services.content.locations import locate
from services.content.queries import attachments, documents
from services.content.schemas.documents import ContentByPathQuery, ContentUpdate, DomainsUpdate, PriorityUpdate
from services.content.shapes import DOCUMENT

BY_PATH_QUERY = ContentByPathQuery()
PRIORITY_UPDATE = PriorityUpdate()
CONTENT_UPDATE = ContentUpdate()
DOMAINS_UPDATE = DomainsUpdate()
NO_SUCH_DOCUMENT = "no such document"


async def content_get(request: web.Request) -> web.Response:
    """GET /api/v1/content/{id}: the full document."""
    async with cursor(request.app[DB_POOL]) as cur:
        row = await documents.get_document(cur, caller_of(request).org.id, request.match_info["id"])
    if row is None:
        raise NotFound(NO_SUCH_DOCUMENT)
    return versioned_response(request, DOCUMENT.of(row), documents.document_etag(row))


async def content_get_by_path(request: web.Request) -> web.Response:
    """GET /api/v1/content/by-path: a product's live document at a path (in any of its spellings)."""
    query = load_query(request, BY_PATH_QUERY)
    product = caller_of(request).checked_product(query["brand_id"])
    async with cursor(request.app[DB_POOL]) as cur:
        row = await documents.find_by_path(cur, product.id, locate(query["path"], None).file_path)
    if row is None:
        raise NotFound(NO_SUCH_DOCUMENT)
    return json_response(
        {
            "id": row["id"],
            "title": row["title"],
            "content": row["content"],
            "filePath": row["file_path"],
            "sourceUrl": row["source_url"],
            "description": row["description"],
        }
    )


async def _edit(request: web.Request, changes: dict[str, Any]) -> web.Response:
    """Apply field changes to one of the caller's documents (if it is still the version `If-Match`
    names) and answer the full document with its new ETag."""
    async with transaction(request.app[DB_POOL]) as cur:
        current = await documents.lock_document(cur, caller_of(request).org.id, request.match_info["id"])
        if current is None:
            raise NotFound(NO_SUCH_DOCUMENT)
        check_if_match(request, documents.document_etag(current))  # under the row's lock: no write between
        row = await editing.edit_document(cur, current, changes)
    return versioned_response(request, DOCUMENT.of(row), documents.document_etag(row))


async def content_set_priority(request: web.Request) -> web.Response:
    """PATCH /api/v1/content/{id}: set the priority (0 to 100); answers the full document."""
    return await _edit(request, await load_json(request, PRIORITY_UPDATE))


async def content_update(request: web.Request) -> web.Response:
    """PUT /api/v1/content/{id}: replace the supplied fields, leaving the others; answers the full document."""
    return await _edit(request, await load_json(request, CONTENT_UPDATE))


async def content_domains_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/content/{id}/domains: attach, detach, choose the canonical domain; answers `{id, domains}`."""
    data = await load_json(request, DOMAINS_UPDATE)
    organization_id = caller_of(request).org.id
    document_id = request.match_info["id"]
    async with cursor(request.app[DB_POOL]) as cur:
        if await documents.get_document(cur, organization_id, document_id) is None:
            raise NotFound(NO_SUCH_DOCUMENT)
    change = DomainChange(tuple(data.get("attach", ())), tuple(data.get("detach", ())), data.get("canonical_domain_id"))
    hostnames = await resolve_domains(request, change.ids)
    problems = change.problems(hostnames, "attach")
    if problems:
        raise ValidationFailed(details=problems)
    async with transaction(request.app[DB_POOL]) as cur:
        current = await documents.lock_document(cur, organization_id, document_id)
        if current is None:
            raise NotFound(NO_SUCH_DOCUMENT)
        await editing.edit_document(cur, current, {}, change, hostnames)
        document_id = str(current["id"])
        found = await attachments.attachments_of(cur, [document_id])
    return json_response({"id": document_id, "domains": found[document_id]})
