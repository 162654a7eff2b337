"""The site-pages list: one product's live documents, filtered, ordered and paged, with an exact total."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_all, fetch_value
from services.content.shapes import SITE_PAGE

ORDER_COLUMNS = {"createdAt": "d.created_at", "updatedAt": "d.updated_at"}
DIRECTIONS = {"asc": "ASC", "desc": "DESC"}
# Filter name -> SQL condition; only these fixed strings ever reach the query text. The first
# four are columns of documents and, copied, of document_domains, so they read the same on both.
FACET_FILTERS = {
    "status": "status = %(status)s",
    "type": "type = %(type)s",
    "is_manual": "is_manual = %(is_manual)s",
    "has_content": "has_content = %(has_content)s",
}
DOMAIN_FILTERS = {"domain_id": "domain_id = %(domain_id)s", "domain": "domain = %(domain)s"}
# Conditions on `d`: documents, or listed_documents (migration 003), which has every column named
# here and is the only one with `title_lower`, so `query` (title or path ILIKE) is read there only.
DOCUMENT_FILTERS = {
    **FACET_FILTERS,
    "path_prefix": "d.file_path LIKE %(path_prefix)s",
    "query": "(d.title_lower LIKE lower(%(query)s) OR d.file_path ILIKE %(query)s)",
    **{
        name: f"EXISTS (SELECT 1 FROM document_domains a WHERE a.document_id = d.id AND a.{condition}"
        " AND a.deleted_at IS NULL)"
        for name, condition in DOMAIN_FILTERS.items()
    },
}


def like_escape(text: str) -> str:
    """`text` as a literal inside a LIKE pattern: its wildcards and escape character lose their meaning."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _params(product_id: str, filters: dict[str, Any]) -> dict[str, Any]:
    """The query parameters: the product and the filters, the pattern ones as LIKE patterns."""
    params = {**filters, "product_id": product_id}
    if "query" in params:
        params["query"] = f"%{like_escape(params['query'])}%"
    if "path_prefix" in params:
        prefix = params["path_prefix"]
        params["path_prefix"] = like_escape(prefix if prefix.startswith("/") else "/" + prefix) + "%"
    return params


def _source(filters: dict[str, Any]) -> str:
    """The live documents of the product the filters match: `FROM <table> d WHERE <conditions>`.

    With the substring filter, listed_documents, whose rows are narrow: a trigram match is only a
    candidate, and its row is read again to be counted.
    """
    if "query" in filters:
        table, conditions = "listed_documents", ["d.product_id = %(product_id)s"]
    else:
        table, conditions = "documents", ["d.product_id = %(product_id)s", "d.deleted_at IS NULL"]
    return f"FROM {table} d WHERE {' AND '.join(conditions + [DOCUMENT_FILTERS[name] for name in filters])}"


async def list_pages(
    cur: Any, product_id: str, filters: dict[str, Any], order_by: str, direction: str, limit: int, offset: int
) -> list[Row]:
    """The page's documents are found in order where the filters read, then their columns read from documents."""
    order = f"{ORDER_COLUMNS[order_by]} {DIRECTIONS[direction]}, d.id {DIRECTIONS[direction]}"
    page = f"SELECT d.id {_source(filters)} ORDER BY {order} LIMIT %(limit)s OFFSET %(offset)s"
    return await fetch_all(
        cur,
        f"SELECT {SITE_PAGE.columns_of('d')} FROM ({page}) AS page JOIN documents d ON d.id = page.id ORDER BY {order}",
        {**_params(product_id, filters), "limit": limit, "offset": offset},
    )


async def count_pages(cur: Any, product_id: str, filters: dict[str, Any]) -> int:
    """The exact number of pages the filters match.

    With no filter but facets, the sum of the product's counts (document_counts, kept by
    triggers). With one domain filter and otherwise only filters the attachments carry, each matching
    document has exactly one live attachment that matches (a document is attached to a domain,
    and to a hostname, once): counting those reads one index instead of joining two tables.
    """
    domain = [name for name in filters if name in DOMAIN_FILTERS]
    if all(name in FACET_FILTERS for name in filters):
        conditions = ["product_id = %(product_id)s", *(FACET_FILTERS[name] for name in filters)]
        sql = f"SELECT COALESCE(sum(n), 0)::bigint FROM document_counts WHERE {' AND '.join(conditions)}"
    elif len(domain) == 1 and all(name in FACET_FILTERS or name in domain for name in filters):
        conditions = ["product_id = %(product_id)s", "deleted_at IS NULL", DOMAIN_FILTERS[domain[0]]]
        conditions += [FACET_FILTERS[name] for name in filters if name in FACET_FILTERS]
        sql = f"SELECT count(*) FROM document_domains WHERE {' AND '.join(conditions)}"
    else:
        sql = f"SELECT count(*) {_source(filters)}"
    total: int = await fetch_value(cur, sql, _params(product_id, filters))
    return total


async def fold_counts(cur: Any) -> None:
    """Fold the appended count changes into one row per product and facets (none for a zero).

    Safe beside writers and another fold: the DELETE takes only the rows its snapshot sees, and
    rows appended meanwhile stay for the next fold.
    """
    await cur.execute(
        "WITH folded AS (DELETE FROM document_counts RETURNING *)"
        " INSERT INTO document_counts (product_id, status, type, is_manual, has_content, n)"
        " SELECT product_id, status, type, is_manual, has_content, sum(n) FROM folded"
        " GROUP BY product_id, status, type, is_manual, has_content HAVING sum(n) <> 0"
    )
