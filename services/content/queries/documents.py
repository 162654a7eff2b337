"""Reads and writes of the documents table. Plain async functions, cursor first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from libs.common.db import Row, fetch_all, fetch_one, fetch_returned, fetch_value, json_or_null
from libs.common.etags import etag
from libs.contract.validators import is_uuid
from services.content.shapes import DOCUMENT, TARGET_JSON

JSON_COLUMNS = frozenset({"metadata", "tiptap_json"})


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
        f"SELECT {DOCUMENT.columns} FROM documents WHERE id = %s AND organization_id = %s{live}",
        (document_id, organization_id),
    )


async def lock_document(cur: Any, organization_id: str, document_id: str, product_id: str | None = None) -> Row | None:
    """A live document of the organization (and of the product, when given), locked for this transaction."""
    if not is_uuid(document_id):
        return None
    in_product = "" if product_id is None else " AND product_id = %(product_id)s"
    return await fetch_one(
        cur,
        f"SELECT {DOCUMENT.columns} FROM documents WHERE id = %(id)s AND organization_id = %(organization_id)s"
        f" AND deleted_at IS NULL{in_product} FOR UPDATE",
        {"id": document_id, "organization_id": organization_id, "product_id": product_id},
    )


async def lock_documents(cur: Any, organization_id: str, product_id: str, document_ids: list[str]) -> None:
    """Lock the product's live documents among `document_ids` for this transaction, in id order,
    before a batch edits them one by one in the order it was given: every writer of several
    documents takes them in id order (lock_attached too), so two never wait on each other in a circle."""
    await cur.execute(
        "SELECT FROM documents WHERE id = ANY(%s::uuid[]) AND organization_id = %s AND product_id = %s"
        " AND deleted_at IS NULL ORDER BY id FOR UPDATE",
        ([document_id for document_id in document_ids if is_uuid(document_id)], organization_id, product_id),
    )


async def lock_attached(cur: Any, organization_id: str, domain_ids: list[str]) -> list[Row]:
    """The organization's live documents attached to any of the domains, locked for this transaction, in id order."""
    return await fetch_all(
        cur,
        f"SELECT {DOCUMENT.columns} FROM documents d WHERE organization_id = %s AND deleted_at IS NULL"
        " AND EXISTS (SELECT 1 FROM document_domains a WHERE a.document_id = d.id"
        " AND a.domain_id = ANY(%s::uuid[]) AND a.deleted_at IS NULL) ORDER BY id FOR UPDATE",
        (organization_id, domain_ids),
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
        f" RETURNING {DOCUMENT.columns}",
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
        f"UPDATE documents SET {', '.join(assignments)} WHERE id = %(document_id)s RETURNING {DOCUMENT.columns}",
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
        f" RETURNING {DOCUMENT.columns}",
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


# What agents may read: live, published and not noIndex.
LISTED = (
    "organization_id = %s AND id = ANY(ARRAY(SELECT jsonb_array_elements_text(%s)::uuid))"
    " AND status = 'published' AND NOT no_index AND deleted_at IS NULL"
)


async def listed_documents(cur: Any, organization_id: str, ids: list[str]) -> bytes:
    """`{"documents": [{id, title, note, priority, productId, updatedAt}, ...]}`: the documents
    among `ids` agents may read, in no set order, written by PostgreSQL (an App's 10,000 at once).
    The note is the description for agents, else the description."""
    listed: str = await fetch_value(
        cur,
        "SELECT COALESCE(json_agg(json_build_object('id', id, 'title', title, 'note',"
        " COALESCE(NULLIF(btrim(description_for_agent), ''), description), 'priority', priority,"
        f" 'productId', product_id, 'updatedAt', updated_at)), '[]')::text FROM documents WHERE {LISTED}",
        (organization_id, json_or_null(ids)),
    )
    return b'{"documents":' + listed.encode() + b"}"


async def last_change(cur: Any, organization_id: str) -> datetime | None:
    """When a document of the organization last changed, deleted ones included: every write, a
    delete too, stamps `updated_at` (documents_organization_changed_idx)."""
    last: datetime | None = await fetch_value(
        cur, "SELECT max(updated_at) FROM documents WHERE organization_id = %s", (organization_id,)
    )
    return last


async def documents_text(cur: Any, organization_id: str, ids: list[str]) -> list[Row]:
    """The id and content of the documents among `ids` agents may read."""
    return await fetch_all(
        cur, f"SELECT id, content FROM documents WHERE {LISTED}", (organization_id, json_or_null(ids))
    )


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
        f"SELECT {DOCUMENT.columns} FROM documents WHERE organization_id = %s AND deleted_at IS NULL"
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
