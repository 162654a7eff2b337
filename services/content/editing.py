"""Every write to a document goes through here: the rules of paths, addresses, publication and
domains, and the event that tells other parts about it, in the caller's transaction."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from libs.common.db import Row, conflict_on_unique
from services.content.domains import DomainChange
from services.content.locations import locate
from services.content.queries import attachments, documents, outbox

PATH_KEY = "documents_live_path_key"


@contextmanager
def path_conflict(file_path: str) -> Iterator[None]:
    """A path already taken among the product's live documents is a 409 (decided by the unique index)."""
    with conflict_on_unique(f"the path {file_path} is already taken in this product", PATH_KEY):
        yield


def event_type(before: Row, after: Row) -> str:
    if before["status"] != after["status"]:
        return outbox.PUBLISHED if after["status"] == "published" else outbox.UNPUBLISHED
    return outbox.CHANGED


async def create_document(
    cur: Any,
    organization_id: str,
    product_id: str,
    slug: str,
    values: dict[str, Any],
    domains: DomainChange,
    hostnames: Mapping[str, str],
) -> Row:
    """A new document at the path of `slug`, with its domains; `values` maps further columns."""
    canonical = hostnames[domains.canonical] if domains.canonical else None
    location = locate(slug, canonical)
    with path_conflict(location.file_path):
        row = await documents.insert_document(
            cur,
            {
                **values,
                "organization_id": organization_id,
                "product_id": product_id,
                "file_path": location.file_path,
                "source_url": location.source_url,
            },
        )
    document_id = str(row["id"])
    await attachments.attach(cur, document_id, domains.to_attach(hostnames))
    if domains.canonical:
        await attachments.make_canonical(cur, document_id, domains.canonical)
    await outbox.record_event(cur, outbox.CREATED, row)
    return row


async def _apply_domains(cur: Any, document_id: str, domains: DomainChange, hostnames: Mapping[str, str]) -> bool:
    changed = await attachments.detach(cur, document_id, list(domains.detach))
    changed = await attachments.attach(cur, document_id, domains.to_attach(hostnames)) or changed
    if domains.canonical:
        changed = await attachments.make_canonical(cur, document_id, domains.canonical) or changed
    return changed


async def edit_document(
    cur: Any,
    current: Row,
    changes: dict[str, Any],
    domains: DomainChange | None = None,
    hostnames: Mapping[str, str] | None = None,
) -> Row:
    """Apply `changes` (columns to values) and a domain change to a live document locked by the caller.

    A path is brought to its canonical form; the address follows a new path or canonical domain
    unless the change sets it. Nothing that leaves the document as it was is written or announced.
    """
    document_id = str(current["id"])
    changes = dict(changes)
    explicit_url = "source_url" in changes
    domains_changed = domains is not None and await _apply_domains(cur, document_id, domains, hostnames or {})
    given: str = changes["file_path"] if "file_path" in changes else current["file_path"]
    file_path = locate(given, None).file_path
    if "file_path" in changes:
        changes["file_path"] = file_path
    changes = {column: value for column, value in changes.items() if current[column] != value}
    if not explicit_url and ("file_path" in changes or domains_changed):
        source_url = locate(file_path, await attachments.canonical_hostname(cur, document_id)).source_url
        if source_url is not None and source_url != current["source_url"]:
            changes["source_url"] = source_url
    if not changes and not domains_changed:
        return current
    with path_conflict(file_path):
        row = await documents.update_document(cur, document_id, changes)
    await outbox.record_event(cur, event_type(current, row), row)
    return row


async def delete_document(cur: Any, organization_id: str, product_id: str, document_id: str) -> Row | None:
    """Soft-delete a live document of the product; None when there is none."""
    row = await documents.delete_document(cur, organization_id, product_id, document_id)
    if row is not None:
        await outbox.record_event(cur, outbox.DELETED, row)
    return row
