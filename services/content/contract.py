"""The content service's public routes: site pages and content documents.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.event import Event
from libs.contract.route import CONTRACT_DATE, Route
from services.content.schemas import documents, site_pages

PART = "content"

ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/api/v1/site/pages",
        PART,
        "content:read",
        "site_pages_list",
        "List a product's site pages",
        product_query="productId",
        tag="Site pages",
        query=site_pages.SitePagesQuery,
        response=site_pages.SitePageList,
    ),
    Route(
        "POST",
        "/api/v1/site/pages",
        PART,
        "content:write",
        "site_pages_create",
        "Create site pages (deprecated: use Apps)",
        product_body="productId",
        deprecated=CONTRACT_DATE,
        successor="/api/v1/apps",
        tag="Site pages",
        body=site_pages.PagesCreate,
        response=site_pages.PagesCreated,
    ),
    Route(
        "PATCH",
        "/api/v1/site/pages",
        PART,
        "content:write",
        "site_pages_update",
        "Update site pages (deprecated: use Apps)",
        product_body="productId",
        deprecated=CONTRACT_DATE,
        successor="/api/v1/apps",
        tag="Site pages",
        body=site_pages.PagesUpdate,
        response=site_pages.PagesUpdated,
    ),
    Route(
        "DELETE",
        "/api/v1/site/pages",
        PART,
        "content:write",
        "site_pages_delete",
        "Delete site pages (deprecated: use Apps)",
        product_body="productId",
        deprecated=CONTRACT_DATE,
        successor="/api/v1/apps",
        tag="Site pages",
        body=site_pages.PagesDelete,
        response=site_pages.PagesDeleted,
    ),
    Route(
        "GET",
        "/api/v1/content/by-path",
        PART,
        "content:read",
        "content_get_by_path",
        "Get a content document by its product and path",
        product_query="brandId",
        tag="Content",
        query=documents.ContentByPathQuery,
        response=documents.ContentByPath,
    ),
    Route(
        "GET",
        "/api/v1/content/{id}",
        PART,
        "content:read",
        "content_get",
        "Get a content document",
        tag="Content",
        response=documents.ContentDocument,
        versioned=True,
    ),
    Route(
        "PATCH",
        "/api/v1/content/{id}",
        PART,
        "content:write",
        "content_set_priority",
        "Set a content document's priority",
        tag="Content",
        body=documents.PriorityUpdate,
        response=documents.ContentDocument,
        versioned=True,
        if_match=True,
    ),
    Route(
        "PUT",
        "/api/v1/content/{id}",
        PART,
        "content:write",
        "content_update",
        "Update a content document's fields",
        tag="Content",
        body=documents.ContentUpdate,
        response=documents.ContentDocument,
        versioned=True,
        if_match=True,
    ),
    Route(
        "PATCH",
        "/api/v1/content/{id}/domains",
        PART,
        "content:write",
        "content_domains_update",
        "Attach, detach and choose the canonical domain of a content document",
        tag="Content",
        body=documents.DomainsUpdate,
        response=documents.DocumentDomains,
    ),
)

# Each carries the document as the API shows it.
EVENTS: tuple[Event, ...] = tuple(
    Event(f"content.document.{intent}", summary, documents.ContentDocument, "Content")
    for intent, summary in (
        ("created", "A content document (site page) was created."),
        ("updated", "A content document was changed."),
        ("published", "A content document was published."),
        ("unpublished", "A content document went back to draft."),
        ("deleted", "A content document was deleted (`deletedAt`)."),
    )
)
