"""Documents as answers and webhook payloads show them, each shape declared once by its response
schema (libs/common/shapes.py): the full document, the reduced shapes of the site-page
operations' answers, to which the views add the document's domains, and a document as a route
target."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from libs.common.db import Row
from libs.common.schemas import AppRouteTarget
from libs.common.shapes import Shape
from services.content.locations import slug_of
from services.content.schemas.documents import ContentDocument
from services.content.schemas.site_pages import CreatedPage, SitePage, UpdatedPage

DomainEntries = Mapping[str, list[dict[str, Any]]]

# The document's product is `brandId` in its answers; `organization_id` and `product_id` are read
# for the rules and events of the writes.
DOCUMENT = Shape(
    ContentDocument, expressions={"brand_id": "product_id"}, extra_columns=("organization_id", "product_id")
)
SITE_PAGE = Shape(SitePage, omit=("domains",))
CREATED_PAGE = Shape(CreatedPage, omit=("domains",), computed={"slug": lambda row: slug_of(row["file_path"])})
UPDATED_PAGE = Shape(UpdatedPage, omit=("domains",))
# What other parts see of a document when it is a route target, built by PostgreSQL: a
# product's 10,000 targets encode in about half the time this way (docs/performance.md).
TARGET_JSON = Shape(AppRouteTarget).json_sql()


def site_page(row: Row, domains: DomainEntries) -> dict[str, Any]:
    """An item of the site-pages list."""
    return {**SITE_PAGE.of(row), "domains": domains[str(row["id"])]}


def created_page(row: Row, domains: DomainEntries) -> dict[str, Any]:
    return {**CREATED_PAGE.of(row), "domains": domains[str(row["id"])]}


def updated_page(row: Row, domains: DomainEntries) -> dict[str, Any]:
    return {**UPDATED_PAGE.of(row), "domains": domains[str(row["id"])]}
