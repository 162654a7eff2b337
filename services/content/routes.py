"""The whole route table of the content service."""

from __future__ import annotations

from aiohttp import web

from services.content.views import documents, internal, page_batches, site_pages


def setup_routes(app: web.Application) -> None:
    router = app.router
    router.add_get("/api/v1/site/pages", site_pages.site_pages_list, name="site_pages_list")
    router.add_post("/api/v1/site/pages", page_batches.site_pages_create, name="site_pages_create")
    router.add_patch("/api/v1/site/pages", page_batches.site_pages_update, name="site_pages_update")
    router.add_delete("/api/v1/site/pages", page_batches.site_pages_delete, name="site_pages_delete")
    # Before /{id}, which would otherwise take "by-path" for an id.
    router.add_get("/api/v1/content/by-path", documents.content_get_by_path, name="content_get_by_path")
    router.add_get("/api/v1/content/{id}", documents.content_get, name="content_get")
    router.add_patch("/api/v1/content/{id}", documents.content_set_priority, name="content_set_priority")
    router.add_put("/api/v1/content/{id}", documents.content_update, name="content_update")
    router.add_patch("/api/v1/content/{id}/domains", documents.content_domains_update, name="content_domains_update")
    router.add_post("/internal/documents/lookup", internal.internal_documents_lookup, name="internal_documents_lookup")
    router.add_get(
        "/internal/products/{productId}/documents",
        internal.internal_product_documents,
        name="internal_product_documents",
    )
    router.add_get("/internal/documents/{id}", internal.internal_document_get, name="internal_document_get")
    router.add_get(
        "/internal/organizations/{orgId}/documents",
        internal.internal_organization_documents,
        name="internal_organization_documents",
    )
    router.add_post(
        "/internal/documents/{id}/indexed", internal.internal_document_indexed, name="internal_document_indexed"
    )
