"""What many handlers do alike, written once: acting on a product the path names (the gateway checked
that it is the caller's), and on one resource of the caller's organization named by an id in the
path, 404 when it is not there."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiohttp import web
from marshmallow import Schema

from libs.common.db import cursor, transaction
from libs.common.errors import NotFound
from libs.common.schemas import load_json, load_query, path_id
from libs.common.state import DB_POOL, caller_of

Result = TypeVar("Result")


async def of_product(
    request: web.Request,
    act: Callable[[Any, str, str, dict[str, Any]], Awaitable[Result]],
    *,
    query: Schema | None = None,
    body: Schema | None = None,
    transactional: bool = False,
) -> Result:
    """`act(cur, organization id, product id, loaded)` for the path's `productId`, `loaded` the request's
    query or body loaded with its schema; in a transaction when `transactional`."""
    product = caller_of(request).checked_product(request.match_info["productId"])
    loaded = load_query(request, query) if query is not None else {}
    if body is not None:
        loaded = await load_json(request, body)
    async with (transaction if transactional else cursor)(request.app[DB_POOL]) as cur:
        return await act(cur, caller_of(request).org.id, product.id, loaded)


async def owned(
    request: web.Request,
    name: str,
    what: str,
    act: Callable[..., Awaitable[Result | None]],
    *,
    body: Schema | None = None,
    transactional: bool = False,
) -> Result:
    """`act(cur, organization id, id)` (and the loaded `body`, when one is given) on the resource whose id
    is the path's `name`, in a transaction when `transactional`; 404 "`what` not found" when the id is no
    UUID (before the body is read) or `act` finds nothing."""
    resource_id = path_id(request, name, what)
    values = None if body is None else await load_json(request, body)
    async with (transaction if transactional else cursor)(request.app[DB_POOL]) as cur:
        organization_id = caller_of(request).org.id
        if values is None:
            found = await act(cur, organization_id, resource_id)
        else:
            found = await act(cur, organization_id, resource_id, values)
    if found is None:
        raise NotFound(f"{what} not found")
    return found
