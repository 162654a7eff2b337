"""Handlers of POST, PATCH and DELETE /api/v1/site/pages: a product's pages in batches.

Each item succeeds or fails on its own (a savepoint per item, in one transaction): a failed item
is an entry in `failed` with a message, and the call still succeeds.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from aiohttp import web

from libs.common.db import savepoint, transaction
from libs.common.encoding import json_response
from libs.common.errors import ApiError, Conflict, NotFound, ValidationFailed
from libs.common.internal_token import Caller, Product
from libs.common.schemas import load_json
from libs.common.state import DB_POOL, caller_of
from services.content import editing
from services.content.domains import DomainChange, resolve_domains
from services.content.locations import slug_of
from services.content.queries import attachments, documents
from services.content.schemas.site_pages import PagesCreate, PagesDelete, PagesUpdate
from services.content.shapes import created_page, updated_page
from services.content.views.common import scope_of

PAGES_CREATE = PagesCreate()
PAGES_UPDATE = PagesUpdate()
PAGES_DELETE = PagesDelete()
# What fails one item and not the request.
ITEM_ERRORS = (Conflict, NotFound, ValidationFailed)
NO_SUCH_PAGE = "no such page in this product"
CREATE_COLUMNS = ("title", "content", "description", "meta_title", "meta_description", "status")
UPDATE_COLUMNS = (
    "title",
    "content",
    "description",
    "meta_title",
    "meta_description",
    "file_path",
    "status",
    "is_manual",
    "no_index",
    "redirect_to_url",
)


def failure_message(error: ApiError) -> str:
    if isinstance(error.details, dict) and error.details:
        return "; ".join(f"{field}: {message}" for field, message in error.details.items())
    return error.message


def picked(item: dict[str, Any], columns: tuple[str, ...]) -> dict[str, Any]:
    return {column: item[column] for column in columns if column in item}


def outcome(caller: Caller, product: Product, verb: str, done: list[Any], failed: list[Any]) -> web.Response:
    """The answer of a batch: `<verb>Count`, `failedCount`, `<verb>` and `failed`."""
    data = {"scope": scope_of(caller, product), f"{verb}Count": len(done), "failedCount": len(failed)}
    return json_response({**data, verb: done, "failed": failed})


async def site_pages_create(request: web.Request) -> web.Response:
    """POST /api/v1/site/pages (deprecated): create pages, drafts unless an item says otherwise."""
    data = await load_json(request, PAGES_CREATE)
    caller = caller_of(request)
    product = caller.checked_product(data["product_id"])
    changes = [
        DomainChange(attach=tuple(item.get("domain_ids", ())), canonical=item.get("canonical_domain_id"))
        for item in data["pages"]
    ]
    hostnames = await resolve_domains(request, chain.from_iterable(change.ids for change in changes))
    created, failed = [], []
    async with transaction(request.app[DB_POOL]) as cur:
        for item, change in zip(data["pages"], changes, strict=True):
            try:
                problems = change.problems(hostnames, "domainIds")
                if problems:
                    raise ValidationFailed(details=problems)
                async with savepoint(cur):
                    values = picked(item, CREATE_COLUMNS)
                    row = await editing.create_document(
                        cur, caller.org.id, product.id, item["slug"], values, change, hostnames
                    )
            except ITEM_ERRORS as error:
                failed.append({"slug": item["slug"], "message": failure_message(error), "id": None})
            else:
                created.append(row)
        domains = await attachments.attachments_of(cur, [str(row["id"]) for row in created])
    return outcome(caller, product, "created", [created_page(row, domains) for row in created], failed)


async def site_pages_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/site/pages (deprecated): update pages of the product, each on its own."""
    data = await load_json(request, PAGES_UPDATE)
    caller = caller_of(request)
    product = caller.checked_product(data["product_id"])
    changes = [
        DomainChange(
            tuple(item.get("attach_domain_ids", ())),
            tuple(item.get("detach_domain_ids", ())),
            item.get("canonical_domain_id"),
        )
        for item in data["pages"]
    ]
    hostnames = await resolve_domains(request, chain.from_iterable(change.ids for change in changes))
    updated, failed = [], []
    async with transaction(request.app[DB_POOL]) as cur:
        await documents.lock_documents(cur, caller.org.id, product.id, [item["id"] for item in data["pages"]])
        for item, change in zip(data["pages"], changes, strict=True):
            current = None
            try:
                async with savepoint(cur):
                    current = await documents.lock_document(cur, caller.org.id, item["id"], product.id)
                    if current is None:
                        raise NotFound(NO_SUCH_PAGE)
                    problems = change.problems(hostnames, "attachDomainIds", "detachDomainIds")
                    if problems:
                        raise ValidationFailed(details=problems)
                    row = await editing.edit_document(cur, current, picked(item, UPDATE_COLUMNS), change, hostnames)
            except ITEM_ERRORS as error:
                slug = None if current is None else slug_of(current["file_path"])
                failed.append({"id": item["id"], "message": failure_message(error), "slug": slug})
            else:
                updated.append(row)
        domains = await attachments.attachments_of(cur, [str(row["id"]) for row in updated])
    return outcome(caller, product, "updated", [updated_page(row, domains) for row in updated], failed)


async def site_pages_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/site/pages: soft-delete pages of the product; unknown ones are reported in `failed`."""
    data = await load_json(request, PAGES_DELETE)
    caller = caller_of(request)
    product = caller.checked_product(data["product_id"])
    deleted, failed = [], []
    async with transaction(request.app[DB_POOL]) as cur:
        await documents.lock_documents(cur, caller.org.id, product.id, data["page_ids"])
        for page_id in data["page_ids"]:
            row = await editing.delete_document(cur, caller.org.id, product.id, page_id)
            if row is None:
                failed.append({"id": page_id, "message": NO_SUCH_PAGE, "slug": None})
            else:
                deleted.append({"id": row["id"], "title": row["title"]})
    return outcome(caller, product, "deleted", deleted, failed)
