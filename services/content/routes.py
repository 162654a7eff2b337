"""The content service's HTTP routing: its public contract's handlers, then its internal endpoints."""

from __future__ import annotations

from aiohttp import web

from libs.common.webhook_outbox import internal_webhook_changes
from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.content import contract
from services.content.views import documents, internal, page_batches, site_pages

HANDLERS = (
    site_pages.site_pages_list,
    page_batches.site_pages_create,
    page_batches.site_pages_update,
    page_batches.site_pages_delete,
    documents.content_get_by_path,
    documents.content_get,
    documents.content_set_priority,
    documents.content_update,
    documents.content_domains_update,
)
INTERNAL_HANDLERS = (
    internal.internal_documents_lookup,
    internal.internal_targets,
    internal.internal_targets_count,
    internal.internal_document_get,
    internal.internal_organization_documents,
    internal.internal_documents_listed,
    internal.internal_documents_last_change,
    internal.internal_documents_text,
    internal.internal_document_indexed,
    internal.internal_changes,
    internal.internal_domains_withdrawn,
    internal_webhook_changes,
)


def setup_routes(app: web.Application) -> None:
    router = app.router
    # In declaration order: /content/by-path comes before /content/{id}, which would take it for an id.
    register_handlers(router, contract.ROUTES, HANDLERS)
    register_handlers(router, endpoints_of(contract.PART), INTERNAL_HANDLERS)
