"""Domain attachments of documents: which domains a document is served on, and its canonical one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from libs.common.db import fetch_all, fetch_one, fetch_value


async def attachments_of(cur: Any, document_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each document's live attachments as entries `{id, domain, isCanonical}`, the canonical one first."""
    rows = await fetch_all(
        cur,
        "SELECT document_id, domain_id, domain, is_canonical FROM document_domains"
        " WHERE document_id = ANY(%s::uuid[]) AND deleted_at IS NULL"
        " ORDER BY document_id, is_canonical DESC, domain, domain_id",
        (document_ids,),
    )
    found: dict[str, list[dict[str, Any]]] = {str(document_id): [] for document_id in document_ids}
    for row in rows:
        found[str(row["document_id"])].append(
            {"id": row["domain_id"], "domain": row["domain"], "isCanonical": row["is_canonical"]}
        )
    return found


async def attach(cur: Any, document_id: str, hostnames: Mapping[str, str]) -> bool:
    """Attach domains (id -> hostname). One already attached, or whose hostname the document is
    already served on, stays as it is. Whether any was new."""
    if not hostnames:
        return False
    await cur.execute(
        "INSERT INTO document_domains (document_id, domain_id, domain)"
        " SELECT %s, domain_id, domain FROM unnest(%s::uuid[], %s::text[]) AS given (domain_id, domain)"
        " ON CONFLICT DO NOTHING",
        (document_id, list(hostnames), list(hostnames.values())),
    )
    return bool(cur.rowcount)


async def detach(cur: Any, document_id: str, domain_ids: list[str]) -> bool:
    """Detach domains (a detached canonical domain leaves the document without one). Whether any was attached."""
    if not domain_ids:
        return False
    await cur.execute(
        "UPDATE document_domains SET deleted_at = clock_timestamp(), is_canonical = false"
        " WHERE document_id = %s AND domain_id = ANY(%s::uuid[]) AND deleted_at IS NULL",
        (document_id, domain_ids),
    )
    return bool(cur.rowcount)


async def make_canonical(cur: Any, document_id: str, domain_id: str) -> bool:
    """Make an attached domain the canonical one. Whether that changed anything.

    Two statements, the old one cleared first: the unique index on the canonical domain is
    checked row by row, so one statement swapping both could trip over itself.
    """
    await cur.execute(
        "UPDATE document_domains SET is_canonical = false"
        " WHERE document_id = %s AND is_canonical AND domain_id <> %s AND deleted_at IS NULL",
        (document_id, domain_id),
    )
    cleared = cur.rowcount
    await cur.execute(
        "UPDATE document_domains SET is_canonical = true"
        " WHERE document_id = %s AND domain_id = %s AND NOT is_canonical AND deleted_at IS NULL",
        (document_id, domain_id),
    )
    return bool(cleared or cur.rowcount)


async def canonical(cur: Any, document_id: str) -> tuple[str, str] | None:
    """The document's canonical domain as (id, hostname), if it has one."""
    row = await fetch_one(
        cur,
        "SELECT domain_id, domain FROM document_domains WHERE document_id = %s AND is_canonical AND deleted_at IS NULL",
        (document_id,),
    )
    return None if row is None else (str(row["domain_id"]), row["domain"])


async def canonical_hostname(cur: Any, document_id: str) -> str | None:
    hostname: str | None = await fetch_value(
        cur,
        "SELECT domain FROM document_domains WHERE document_id = %s AND is_canonical AND deleted_at IS NULL",
        (document_id,),
    )
    return hostname
