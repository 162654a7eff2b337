"""The site-pages list: one product's live documents, filtered, ordered and paged, with an exact total."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_all, fetch_value

PAGE_COLUMNS = (
    "d.id, d.title, d.file_path, d.source_url, d.status, d.type, d.is_manual, d.meta_title, d.meta_description,"
    " d.published_at, d.created_at, d.updated_at"
)
ORDER_COLUMNS = {"createdAt": "d.created_at", "updatedAt": "d.updated_at"}
DIRECTIONS = {"asc": "ASC", "desc": "DESC"}
# Filter name -> SQL condition; only these fixed strings ever reach the query text.
FILTERS = {
    "status": "d.status = %(status)s",
    "type": "d.type = %(type)s",
    "is_manual": "d.is_manual = %(is_manual)s",
    "path_prefix": "d.file_path LIKE %(path_prefix)s",
    "has_content": "(d.content <> '') = %(has_content)s",
    "query": "(d.title ILIKE %(query)s OR d.file_path ILIKE %(query)s)",
    "domain_id": "EXISTS (SELECT 1 FROM document_domains a"
    " WHERE a.document_id = d.id AND a.domain_id = %(domain_id)s AND a.deleted_at IS NULL)",
    "domain": "EXISTS (SELECT 1 FROM document_domains a"
    " WHERE a.document_id = d.id AND a.domain = %(domain)s AND a.deleted_at IS NULL)",
}


def like_escape(text: str) -> str:
    """`text` as a literal inside a LIKE pattern: its wildcards and escape character lose their meaning."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def filter_params(filters: dict[str, Any]) -> dict[str, Any]:
    """The query parameters of the given filters, the pattern ones turned into LIKE patterns."""
    params = dict(filters)
    if "query" in params:
        params["query"] = f"%{like_escape(params['query'])}%"
    if "path_prefix" in params:
        prefix = params["path_prefix"]
        params["path_prefix"] = like_escape(prefix if prefix.startswith("/") else "/" + prefix) + "%"
    return params


def _where(filters: dict[str, Any]) -> str:
    return " AND ".join(["d.product_id = %(product_id)s", "d.deleted_at IS NULL", *(FILTERS[name] for name in filters)])


async def list_pages(
    cur: Any, product_id: str, filters: dict[str, Any], order_by: str, direction: str, limit: int, offset: int
) -> list[Row]:
    order = f"{ORDER_COLUMNS[order_by]} {DIRECTIONS[direction]}, d.id {DIRECTIONS[direction]}"
    return await fetch_all(
        cur,
        f"SELECT {PAGE_COLUMNS} FROM documents d WHERE {_where(filters)} ORDER BY {order}"
        " LIMIT %(limit)s OFFSET %(offset)s",
        {**filter_params(filters), "product_id": product_id, "limit": limit, "offset": offset},
    )


async def count_pages(cur: Any, product_id: str, filters: dict[str, Any]) -> int:
    total: int = await fetch_value(
        cur,
        f"SELECT count(*) FROM documents d WHERE {_where(filters)}",
        {**filter_params(filters), "product_id": product_id},
    )
    return total
