"""Reads and writes of the documents table. Plain async functions, cursor first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from libs.common.db import Row, fetch_all, fetch_one, fetch_returned, fetch_value, json_or_null
from libs.common.etags import etag
from libs.common.validators import is_uuid

# Column -> key of the full document, in the order of the specification's table.
DOCUMENT_KEYS = {
    "id": "id", "created_at": "createdAt", "updated_at": "updatedAt", "deleted_at": "deletedAt",
    "last_indexed_at": "lastIndexedAt", "published_at": "publishedAt", "file_path": "filePath", "title": "title",
    "content": "content", "source_url": "sourceUrl", "css_selector": "cssSelector",
    "css_exclude_selector": "cssExcludeSelector", "source_checksum": "sourceChecksum", "product_id": "brandId",
    "is_manual": "isManual", "canonical_url": "canonicalUrl", "description": "description",
    "description_for_agent": "descriptionForAgent", "image": "image", "meta_title": "metaTitle",
    "meta_description": "metaDescription", "no_index": "noIndex", "og_title": "ogTitle",
    "og_description": "ogDescription", "og_image": "ogImage", "twitter_title": "twitterTitle",
    "twitter_description": "twitterDescription", "twitter_image": "twitterImage", "type": "type", "tags": "tags",
    "current_draft_id": "currentDraftId", "status": "status", "priority": "priority", "prompt_id": "promptId",
    "redirect_to_url": "redirectToUrl", "metadata": "metadata", "tiptap_json": "tiptapJson",
}  # fmt: skip
DOCUMENT_COLUMNS = ", ".join(["organization_id", *DOCUMENT_KEYS])
JSON_COLUMNS = frozenset({"metadata", "tiptap_json"})
# What other parts see of a document when it is a route target, built by PostgreSQL: a
# product's 10,000 targets encode in about half the time this way (docs/performance.md).
TARGET_JSON = (
    "json_build_object('id', id, 'title', title, 'filePath', file_path, 'sourceUrl', source_url,"
    " 'status', status, 'type', type, 'redirectToUrl', redirect_to_url, 'productId', product_id)"
)


def document_from_row(row: Row) -> dict[str, Any]:
    """The full content document of the specification."""
    return {key: row[column] for column, key in DOCUMENT_KEYS.items()}


def document_etag(row: Row) -> str:
    """The document's version: every write of it stamps `updated_at` (the search index's
    `last_indexed_at` is not a write of its content and leaves it)."""
    return etag(row["id"], row["updated_at"])


def _stored(column: str, value: Any) -> Any:
    return json_or_null(value) if column in JSON_COLUMNS else value


async def get_document(cur: Any, organization_id: str, document_id: str, *, with_deleted: bool = False) -> Row | None:
    """One of the organization's documents (a deleted one only when asked); None for an unknown id."""
    if not is_uuid(document_id):
        return None
    live = "" if with_deleted else " AND deleted_at IS NULL"
    return await fetch_one(
        cur,
        f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = %s AND organization_id = %s{live}",
        (document_id, organization_id),
    )


async def lock_document(cur: Any, organization_id: str, document_id: str, product_id: str | None = None) -> Row | None:
    """A live document of the organization (and of the product, when given), locked for this transaction."""
    if not is_uuid(document_id):
        return None
    in_product = "" if product_id is None else " AND product_id = %(product_id)s"
    return await fetch_one(
        cur,
        f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = %(id)s AND organization_id = %(organization_id)s"
        f" AND deleted_at IS NULL{in_product} FOR UPDATE",
        {"id": document_id, "organization_id": organization_id, "product_id": product_id},
    )


async def find_by_path(cur: Any, product_id: str, file_path: str) -> Row | None:
    return await fetch_one(
        cur,
        "SELECT id, title, content, file_path, source_url, description FROM documents"
        " WHERE product_id = %s AND file_path = %s AND deleted_at IS NULL",
        (product_id, file_path),
    )


async def insert_document(cur: Any, values: dict[str, Any]) -> Row:
    """Store a new document; `values` maps columns to values and must name the organization and product.

    A document stored as published is published now.
    """
    columns = list(values)
    placeholders = [f"%({column})s" for column in columns]
    params = {column: _stored(column, value) for column, value in values.items()}
    params["published"] = values.get("status") == "published"
    return await fetch_returned(
        cur,
        f"INSERT INTO documents ({', '.join(columns)}, published_at)"
        f" VALUES ({', '.join(placeholders)}, CASE WHEN %(published)s THEN clock_timestamp() END)"
        f" RETURNING {DOCUMENT_COLUMNS}",
        params,
    )


async def update_document(cur: Any, document_id: str, changes: dict[str, Any]) -> Row:
    """Write `changes` (columns to values) to a document and stamp it updated.

    Publishing sets `published_at`; returning to draft clears it.
    """
    assignments = [f"{column} = %({column})s" for column in changes]
    if "status" in changes:
        assignments.append("published_at = CASE WHEN %(status)s = 'published' THEN clock_timestamp() END")
    assignments.append("updated_at = clock_timestamp()")
    return await fetch_returned(
        cur,
        f"UPDATE documents SET {', '.join(assignments)} WHERE id = %(document_id)s RETURNING {DOCUMENT_COLUMNS}",
        {**{column: _stored(column, value) for column, value in changes.items()}, "document_id": document_id},
    )


async def delete_document(cur: Any, organization_id: str, product_id: str, document_id: str) -> Row | None:
    """Soft-delete a live document of the product; None when there is no such document."""
    if not is_uuid(document_id):
        return None
    return await fetch_one(
        cur,
        "UPDATE documents SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND product_id = %s AND deleted_at IS NULL"
        f" RETURNING {DOCUMENT_COLUMNS}",
        (document_id, organization_id, product_id),
    )


async def _targets_json(cur: Any, where: str, params: tuple[Any, ...]) -> bytes:
    """`{"documents": [target, ...]}` for the live documents matching `where`, in no set order."""
    documents: str = await fetch_value(
        cur, f"SELECT COALESCE(json_agg({TARGET_JSON}), '[]')::text FROM documents WHERE {where}", params
    )
    return b'{"documents":' + documents.encode() + b"}"


async def lookup_targets(cur: Any, organization_id: str, ids: list[str]) -> bytes:
    return await _targets_json(
        cur, "organization_id = %s AND id = ANY(%s::uuid[]) AND deleted_at IS NULL", (organization_id, ids)
    )


async def product_targets(
    cur: Any, organization_id: str, product_ids: list[str], status: str, after: tuple[str, str] | None, limit: int
) -> bytes:
    """`{"documents": [target, ...]}`: the first `limit` live documents of the products with `status`
    in path order, then id, after the document (path, id) `after`.

    One range scan of documents_targets_idx per product, merged (a product's paths are unique
    among its live documents; the id orders equal paths of different products).
    """
    after_condition = " AND (d.file_path, d.id) > (%(after_path)s, %(after_id)s::uuid)" if after else ""
    page: str = await fetch_value(
        cur,
        f"SELECT COALESCE(json_agg(target ORDER BY file_path, id), '[]')::text FROM ("
        f" SELECT {TARGET_JSON} AS target, file_path, id FROM unnest(%(products)s::uuid[]) AS wanted(product)"
        " CROSS JOIN LATERAL (SELECT * FROM documents d WHERE d.product_id = wanted.product"
        " AND d.status = %(status)s AND d.deleted_at IS NULL AND d.organization_id = %(organization)s"
        f"{after_condition} ORDER BY d.file_path, d.id LIMIT %(limit)s) AS d"
        " ORDER BY file_path, id LIMIT %(limit)s) AS page",
        {
            "products": product_ids,
            "status": status,
            "organization": organization_id,
            "after_path": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": limit,
        },
    )
    return b'{"documents":' + page.encode() + b"}"


async def count_targets(
    cur: Any, organization_id: str, product_ids: list[str], status: str, among: list[str] | None
) -> int:
    """How many live documents of the products have `status`; with `among`, how many of those ids do.

    The products' total is the sum of their facet counts (document_counts), a few rows whatever
    their size; a product whose documents are not the organization's counts nothing.
    """
    if among is None:
        sql = (
            "SELECT COALESCE(sum(n), 0)::bigint FROM document_counts WHERE status = %(status)s"
            " AND product_id = ANY(ARRAY(SELECT wanted FROM unnest(%(products)s::uuid[]) AS wanted"
            " WHERE EXISTS (SELECT 1 FROM documents WHERE product_id = wanted AND deleted_at IS NULL"
            " AND organization_id = %(organization)s)))"
        )
    else:
        # The ids travel as one JSON parameter: an ARRAY[...] of thousands of literals takes
        # longer to plan than to run.
        sql = (
            "SELECT count(*) FROM documents WHERE id = ANY(ARRAY(SELECT jsonb_array_elements_text(%(among)s)::uuid))"
            " AND organization_id = %(organization)s AND product_id = ANY(%(products)s::uuid[])"
            " AND status = %(status)s AND deleted_at IS NULL"
        )
    params = {"products": product_ids, "status": status, "organization": organization_id}
    count: int = await fetch_value(cur, sql, {**params, "among": json_or_null(among)})
    return count


async def organization_documents(cur: Any, organization_id: str, after: str | None, limit: int) -> list[Row]:
    """A page of the organization's live documents in id order, starting after `after`."""
    return await fetch_all(
        cur,
        f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE organization_id = %s AND deleted_at IS NULL"
        " AND (%s::uuid IS NULL OR id > %s::uuid) ORDER BY id LIMIT %s",
        (organization_id, after, after, limit),
    )


async def set_last_indexed(cur: Any, organization_id: str, document_id: str, at: datetime) -> Row | None:
    """Record when the search index last took the document in; an older time never replaces a newer one."""
    if not is_uuid(document_id):
        return None
    return await fetch_one(
        cur,
        "UPDATE documents SET last_indexed_at = GREATEST(last_indexed_at, %s)"
        " WHERE id = %s AND organization_id = %s RETURNING id, last_indexed_at",
        (at, document_id, organization_id),
    )
