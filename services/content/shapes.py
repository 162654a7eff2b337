"""Documents in the reduced shapes of the site-page operations' answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from libs.common.db import Row
from services.content.locations import slug_of

DomainEntries = Mapping[str, list[dict[str, Any]]]


def site_page(row: Row, domains: DomainEntries) -> dict[str, Any]:
    """An item of the site-pages list."""
    return {
        "id": row["id"],
        "title": row["title"],
        "filePath": row["file_path"],
        "sourceUrl": row["source_url"],
        "status": row["status"],
        "type": row["type"],
        "isManual": row["is_manual"],
        "metaTitle": row["meta_title"],
        "metaDescription": row["meta_description"],
        "publishedAt": row["published_at"],
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
        "domains": domains[str(row["id"])],
    }


def created_page(row: Row, domains: DomainEntries) -> dict[str, Any]:
    return {
        "id": row["id"],
        "slug": slug_of(row["file_path"]),
        "title": row["title"],
        "sourceUrl": row["source_url"],
        "status": row["status"],
        "domains": domains[str(row["id"])],
    }


def updated_page(row: Row, domains: DomainEntries) -> dict[str, Any]:
    return {
        "id": row["id"],
        "title": row["title"],
        "filePath": row["file_path"],
        "sourceUrl": row["source_url"],
        "status": row["status"],
        "isManual": row["is_manual"],
        "domains": domains[str(row["id"])],
    }
