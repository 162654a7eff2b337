"""The search schema's reads and writes: indexed documents, their chunks, and what changed since when."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import psycopg2

from libs.common.db import Row, fetch_all, fetch_one, fetch_value
from services.search.embedding import DIMENSIONS

# The text search configuration of every tsvector and tsquery of the index.
TEXT_SEARCH_CONFIG = "english"
# ts_rank_cd normalisation 32 (rank / (rank + 1)) with 1 (divide by 1 + log of the length), so
# long chunks do not win by length alone.
RANK_NORMALIZATION = 33
LEXICAL_SAMPLE = 1000

DOCUMENT_FIELDS = "id, organization_id, product_id, status, type, title, file_path, source_url, indexed_at"


@dataclass(frozen=True)
class IndexedDocument:
    """What the index keeps of a content document, read from the content service."""

    id: str
    organization_id: str
    product_id: str
    status: str
    type: str | None
    title: str
    file_path: str | None
    source_url: str | None
    # updatedAt, or deletedAt for a deleted document: orders two reads of the same document.
    version: datetime


def _vector_bytes(vector: np.ndarray) -> psycopg2.Binary:
    return psycopg2.Binary(np.ascontiguousarray(vector, dtype="<f4").tobytes())


async def stored_digest(cur: Any, document_id: str) -> tuple[datetime, bytes | None] | None:
    """The version and content digest the index holds of a document, if it holds it."""
    row = await fetch_one(
        cur, "SELECT source_version, content_digest, removed FROM documents WHERE id = %s", (document_id,)
    )
    if row is None:
        return None
    digest = None if row["removed"] or row["content_digest"] is None else bytes(row["content_digest"])
    return row["source_version"], digest


async def _lock_organization(cur: Any, organization_id: str) -> None:
    """Serialise an organization's index writes until commit, so its change numbers are handed out
    in commit order: a replica that has seen change n has seen every change below n."""
    await cur.execute("SELECT pg_advisory_xact_lock(hashtext('search:' || %s))", (organization_id,))


async def save_document(
    cur: Any,
    document: IndexedDocument,
    digest: bytes,
    chunks: list[str] | None,
    vectors: np.ndarray | None,
    indexed_at: datetime,
) -> bool:
    """Store a live document and, unless `chunks` is None (content unchanged), replace its chunks.

    Run inside a transaction. Returns False, changing nothing, when the index already holds a
    newer read of the document.
    """
    await _lock_organization(cur, document.organization_id)
    saved = await fetch_value(
        cur,
        "INSERT INTO documents AS d (id, organization_id, product_id, status, type, title, file_path, source_url,"
        " source_version, content_digest, removed, indexed_at)"
        " VALUES (%(id)s, %(organization_id)s, %(product_id)s, %(status)s, %(type)s, %(title)s, %(file_path)s,"
        " %(source_url)s, %(version)s, %(digest)s, false, %(indexed_at)s)"
        " ON CONFLICT (id) DO UPDATE SET product_id = excluded.product_id, status = excluded.status,"
        " type = excluded.type, title = excluded.title, file_path = excluded.file_path,"
        " source_url = excluded.source_url, source_version = excluded.source_version,"
        " content_digest = excluded.content_digest, removed = false, indexed_at = excluded.indexed_at,"
        " change = nextval('changes')"
        " WHERE d.organization_id = excluded.organization_id AND d.source_version <= excluded.source_version"
        " RETURNING id",
        {**document.__dict__, "digest": psycopg2.Binary(digest), "indexed_at": indexed_at},
    )
    if saved is None:
        return False
    if chunks is not None:
        assert vectors is not None and vectors.shape == (len(chunks), DIMENSIONS)
        await cur.execute("DELETE FROM chunks WHERE document_id = %s", (document.id,))
        await cur.execute(
            "INSERT INTO chunks (document_id, chunk_index, organization_id, content, embedding, lexemes)"
            " SELECT %(id)s, piece.ordinality - 1, %(organization_id)s, piece.content, vector.embedding,"
            " setweight(to_tsvector(%(config)s, %(title)s), 'A') || to_tsvector(%(config)s, piece.content)"
            " FROM unnest(%(contents)s::text[]) WITH ORDINALITY AS piece (content, ordinality)"
            " JOIN unnest(%(embeddings)s::bytea[]) WITH ORDINALITY AS vector (embedding, ordinality)"
            " USING (ordinality)",
            {
                "id": document.id,
                "organization_id": document.organization_id,
                "config": TEXT_SEARCH_CONFIG,
                "title": document.title,
                "contents": chunks,
                "embeddings": [_vector_bytes(vector) for vector in vectors],
            },
        )
    return True


async def remove_document(cur: Any, organization_id: str, document_id: str, version: datetime | None) -> bool:
    """Take a deleted (or unknown) document out of the index; its row stays as a tombstone so
    replicas learn of it. `version` None: the content service no longer knows the document at all."""
    await _lock_organization(cur, organization_id)
    removed = await fetch_value(
        cur,
        "UPDATE documents SET removed = true, content_digest = NULL, change = nextval('changes'),"
        " source_version = coalesce(%(version)s, source_version)"
        " WHERE id = %(id)s AND organization_id = %(organization_id)s AND NOT removed"
        " AND (%(version)s::timestamptz IS NULL OR source_version <= %(version)s) RETURNING id",
        {"id": document_id, "organization_id": organization_id, "version": version},
    )
    if removed is None:
        return False
    await cur.execute("DELETE FROM chunks WHERE document_id = %s", (document_id,))
    return True


async def latest_change(cur: Any, organization_id: str) -> int:
    """The organization's newest change number; 0 when nothing of it was ever indexed."""
    value = await fetch_value(
        cur, "SELECT coalesce(max(change), 0) FROM documents WHERE organization_id = %s", (organization_id,)
    )
    return int(value)


async def changes_since(cur: Any, organization_id: str, change: int, limit: int) -> tuple[list[Row], list[Row]]:
    """The first `limit` of the organization's documents changed after `change` (removed ones
    included), in change order, and the vectors of the live ones' chunks, in chunk order."""
    documents = await fetch_all(
        cur,
        f"SELECT {DOCUMENT_FIELDS}, removed, change FROM documents"
        " WHERE organization_id = %s AND change > %s ORDER BY change LIMIT %s",
        (organization_id, change, limit),
    )
    live = [row["id"] for row in documents if not row["removed"]]
    if not live:
        return documents, []
    chunks = await fetch_all(
        cur,
        "SELECT document_id, chunk_index, embedding FROM chunks WHERE document_id = ANY(%s::uuid[])"
        " ORDER BY document_id, chunk_index",
        (live,),
    )
    return documents, chunks


async def chunk_contents(cur: Any, keys: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """The text of the chunks named by (document id, chunk index)."""
    if not keys:
        return {}
    rows = await fetch_all(
        cur,
        "SELECT document_id, chunk_index, content FROM chunks"
        " JOIN unnest(%s::uuid[], %s::int[]) AS wanted (document_id, chunk_index) USING (document_id, chunk_index)",
        ([key[0] for key in keys], [key[1] for key in keys]),
    )
    return {(str(row["document_id"]), row["chunk_index"]): row["content"] for row in rows}


async def lexical_ranking(
    cur: Any,
    organization_id: str,
    query: str,
    statuses: list[str],
    product_id: str | None,
    type_: str | None,
    limit: int,
) -> list[str]:
    """Ids of the organization's documents whose chunks hold every word of `query`, best first.

    Only the first LEXICAL_SAMPLE matching chunks are ranked: words found in that many chunks say
    little about which document is meant (the dense ranking still weighs every document), and
    ranking every match of a common word costs hundreds of milliseconds at 100,000 chunks.
    """
    rows = await fetch_all(
        cur,
        "SELECT document_id, max(ts_rank_cd(lexemes, q, %(normalization)s)) AS rank FROM ("
        " SELECT c.document_id, c.lexemes, q FROM chunks c JOIN documents d ON d.id = c.document_id,"
        " plainto_tsquery(%(config)s, %(query)s) q"
        " WHERE c.organization_id = %(organization_id)s AND c.lexemes @@ q AND d.status = ANY(%(statuses)s)"
        " AND (%(product_id)s::uuid IS NULL OR d.product_id = %(product_id)s::uuid)"
        " AND (%(type)s::text IS NULL OR d.type = %(type)s)"
        " LIMIT %(sample)s) matches"
        " GROUP BY document_id ORDER BY rank DESC, document_id LIMIT %(limit)s",
        {
            "normalization": RANK_NORMALIZATION,
            "config": TEXT_SEARCH_CONFIG,
            "query": query,
            "organization_id": organization_id,
            "statuses": statuses,
            "product_id": product_id,
            "type": type_,
            "sample": LEXICAL_SAMPLE,
            "limit": limit,
        },
    )
    return [str(row["document_id"]) for row in rows]


async def organization_document_ids(cur: Any, organization_id: str) -> set[str]:
    """Every live document id the index holds for the organization (for a rebuild)."""
    rows = await fetch_all(
        cur, "SELECT id FROM documents WHERE organization_id = %s AND NOT removed", (organization_id,)
    )
    return {str(row["id"]) for row in rows}
