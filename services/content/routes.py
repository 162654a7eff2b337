"""The content service's HTTP routing: its public contract's handlers, then its internal endpoints."""

from __future__ import annotations

from aiohttp import web

from libs.contract.route import register_handlers
from services.content import contract
from services.content.views import documents, internal, page_batches, site_pages

HANDLERS = {
    "site_pages_list": site_pages.site_pages_list,
    "site_pages_create": page_batches.site_pages_create,
    "site_pages_update": page_batches.site_pages_update,
    "site_pages_delete": page_batches.site_pages_delete,
    "content_get_by_path": documents.content_get_by_path,
    "content_get": documents.content_get,
    "content_set_priority": documents.content_set_priority,
    "content_update": documents.content_update,
    "content_domains_update": documents.content_domains_update,
}


def setup_routes(app: web.Application) -> None:
    router = app.router
    # In declaration order: /content/by-path comes before /content/{id}, which would take it for an id.
    register_handlers(router, contract.ROUTES, HANDLERS)
    router.add_post("/internal/documents/lookup", internal.internal_documents_lookup, name="internal_documents_lookup")
    router.add_get("/internal/targets", internal.internal_targets, name="internal_targets")
    router.add_post("/internal/targets/count", internal.internal_targets_count, name="internal_targets_count")
    router.add_get("/internal/documents/{id}", internal.internal_document_get, name="internal_document_get")
    router.add_get(
        "/internal/organizations/{orgId}/documents",
        internal.internal_organization_documents,
        name="internal_organization_documents",
    )
    router.add_post(
        "/internal/documents/{id}/indexed", internal.internal_document_indexed, name="internal_document_indexed"
    )
