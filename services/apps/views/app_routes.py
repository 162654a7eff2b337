"""Handlers of an app's URL routes: candidates, import preview, batch creation, one route and its update."""

from __future__ import annotations

from typing import Any

import aiopg
from aiohttp import web

from libs.common.cursors import page_of
from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import Conflict, NotFound, ValidationFailed
from libs.common.etags import IF_MATCH, check_if_match, record_etag, versioned_response
from libs.common.schemas import load_json, load_query
from libs.common.state import DB_POOL, caller_of
from libs.contract.validators import normalize_route_path, rfc3986_route_path, route_path_prefix
from services.apps import upstream
from services.apps.candidate_listing import CandidateListing
from services.apps.products import products_by_id
from services.apps.queries import app_routes as queries
from services.apps.queries import apps as app_queries
from services.apps.route_import import ImportItem, import_items, preview_import
from services.apps.schemas.requests import (
    RouteCandidatesQuery,
    RouteImport,
    RoutesQuery,
    RouteUpdate,
)
from services.apps.schemas.values import CANDIDATES_PAGE_DEFAULT

CANDIDATES_QUERY = RouteCandidatesQuery()
ROUTE_IMPORT = RouteImport()
ROUTE_UPDATE = RouteUpdate()
ROUTES_QUERY = RoutesQuery()
# A batch losing a race for a path is checked and tried again; losing this many in a row is a 409.
BATCH_ATTEMPTS = 3

Lookup = dict[str, dict[str, Any]]


async def _require_app(request: web.Request) -> str:
    app_id = request.match_info["appId"]
    async with cursor(request.app[DB_POOL]) as cur:
        await app_queries.require_app(cur, caller_of(request).org.id, app_id)
    return app_id


async def _products_of(request: web.Request, cur: aiopg.Cursor, targets: Lookup) -> Lookup:
    """The products the target documents belong to, by id."""
    return await products_by_id(request, cur, [target["productId"] for target in targets.values()])


def _with_target(route: dict[str, Any], targets: Lookup, products: Lookup) -> dict[str, Any]:
    target = targets.get(route["targetId"])
    product = None if target is None else products.get(target["productId"])
    return {**queries.public(route), "target": target, "product": product}


async def _preview(
    cur: aiopg.Cursor, app_id: str, items: list[ImportItem], targets: Lookup, products: Lookup
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The app's routes the items touch, and the preview of importing the items."""
    existing = await queries.routes_matching(
        cur, app_id, [item.key for item in items], [item.target_id for item in items]
    )
    return existing, preview_import(app_id, items, existing, targets, products)


async def _candidate_products(request: web.Request, app_id: str, product_id: str | None) -> Lookup:
    """The products whose documents are candidates, by id: the one asked for, or all the app's products."""
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await app_queries.list_resource_rows(cur, app_id)
        resources = [str(row["resource_id"]) for row in rows if row["resource_type"] == "product"]
        products = await products_by_id(request, cur, resources)
    if product_id is None:
        return products
    product = caller_of(request).checked_product(product_id)
    if product.id not in resources:
        raise NotFound("this product is not a resource of the app")
    return {product.id: product.to_dict()}


async def apps_route_candidates(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/route-candidates: the documents of the app's products and the paths they would get."""
    app_id = await _require_app(request)  # another organization's app is 404 before the query is checked
    query = load_query(request, CANDIDATES_QUERY)
    products = await _candidate_products(request, app_id, query.get("product_id"))
    listing = CandidateListing(request, app_id, products, query["status"], query["include_routed"])
    if "limit" in query or "cursor" in query:
        return json_response(await listing.page(query.get("cursor"), query.get("limit", CANDIDATES_PAGE_DEFAULT)))
    return await listing.stream()


async def apps_routes_preview(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/routes/import-preview: what a batch of these routes would do; writes nothing."""
    items = import_items((await load_json(request, ROUTE_IMPORT))["routes"])
    app_id = await _require_app(request)
    targets = await upstream.documents_by_id(request, [item.target_id for item in items])
    async with cursor(request.app[DB_POOL]) as cur:
        products = await _products_of(request, cur, targets)
        _, preview = await _preview(cur, app_id, items, targets, products)
    return json_response(preview)


async def apps_routes_batch(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/routes/batch: create the routes, all or none; identical existing ones are kept."""
    items = import_items((await load_json(request, ROUTE_IMPORT))["routes"])
    app_id = await _require_app(request)
    targets = await upstream.documents_by_id(request, [item.target_id for item in items])
    pool = request.app[DB_POOL]
    async with cursor(pool) as cur:
        products = await _products_of(request, cur, targets)
    race: queries.PathTaken | None = None
    for _ in range(BATCH_ATTEMPTS):
        try:
            async with transaction(pool) as cur:
                await app_queries.require_app(cur, caller_of(request).org.id, app_id, lock=True)
                existing, preview = await _preview(cur, app_id, items, targets, products)
                if not preview["valid"]:
                    message = race.message if race else "the import has conflicts; no route was created"
                    raise Conflict(message, details=preview)
                creates = [
                    (item.path, item.key, item.target_type, item.target_id)
                    for item, entry in zip(items, preview["routes"], strict=True)
                    if entry["action"] == "create"
                ]
                created = await queries.insert_routes(cur, caller_of(request).org.id, app_id, creates)
            break
        except queries.PathTaken as taken:
            # A concurrent batch won a path between the check and the insert: check again, so an
            # identical route created meanwhile is kept (200) exactly as if this call came second.
            race = taken
    else:
        async with cursor(pool) as cur:
            _, preview = await _preview(cur, app_id, items, targets, products)
        raise Conflict(race.message if race else None, details=preview)
    by_key = {route["pathKey"]: route for route in [*existing, *created]}
    routes = [_with_target(by_key[item.key], targets, products) for item in items]
    return json_response({"createdCount": len(created), "routes": routes})


async def apps_routes_get(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/routes/{routeId}: one route with its target and product, and its ETag."""
    app_id = await _require_app(request)
    async with cursor(request.app[DB_POOL]) as cur:
        route = await queries.get_route(cur, app_id, request.match_info["routeId"])
    targets = await upstream.documents_by_id(request, [route["targetId"]])
    async with cursor(request.app[DB_POOL]) as cur:
        products = await _products_of(request, cur, targets)
    return versioned_response(request, _with_target(route, targets, products), record_etag(route))


async def apps_routes_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/apps/{appId}/routes/{routeId}: change a route's path and/or target document.

    The path is kept as sent (RFC 3986-normalised); its canonical key decides whether another
    route of the app has it (409). The target is asked of the content service between reading
    the route and writing it, so no transaction is open while another part answers.
    """
    data = await load_json(request, ROUTE_UPDATE)
    if "path" in data:
        data["path_key"] = normalize_route_path(data["path"])
        data["path"] = rfc3986_route_path(data["path"])
    app_id, route_id = request.match_info["appId"], request.match_info["routeId"]
    pool = request.app[DB_POOL]
    async with cursor(pool) as cur:
        await app_queries.require_app(cur, caller_of(request).org.id, app_id)
        route = await queries.get_route(cur, app_id, route_id)
    targets = await upstream.documents_by_id(request, [data.get("target_id", route["targetId"])])
    if "target_id" in data and data["target_id"] not in targets:
        raise ValidationFailed(details={"targetId": "No such document in this organization."})
    async with transaction(pool) as cur:
        if IF_MATCH in request.headers:  # checked under the route's row lock, so no write slips in between
            check_if_match(request, record_etag(await queries.get_route(cur, app_id, route_id, for_update=True)))
        route = await queries.update_route(cur, app_id, route_id, data)
    if route["targetId"] not in targets:  # another request changed the target meanwhile
        targets = await upstream.documents_by_id(request, [route["targetId"]])
    async with cursor(pool) as cur:
        products = await _products_of(request, cur, targets)
    return versioned_response(request, _with_target(route, targets, products), record_etag(route))


async def _with_targets(request: web.Request, routes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The routes in their API shape, each with its target document and that document's product."""
    targets = await upstream.documents_by_id(request, [route["targetId"] for route in routes])
    async with cursor(request.app[DB_POOL]) as cur:
        products = await _products_of(request, cur, targets)
    return [_with_target(route, targets, products) for route in routes]


async def apps_routes_list(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/routes: a page of the app's live routes, oldest first, with their targets."""
    app_id = await _require_app(request)  # another organization's app is 404 before the query is checked
    query = load_query(request, ROUTES_QUERY)
    prefix = query.get("path_prefix")
    async with cursor(request.app[DB_POOL]) as cur:
        found = await queries.list_routes(
            cur,
            app_id,
            query.get("cursor"),
            query["limit"] + 1,
            None if prefix is None else route_path_prefix(prefix),
            query.get("target_id"),
        )
    page, next_cursor = page_of(found, query["limit"], lambda route: (route["createdAt"].isoformat(), route["id"]))
    return json_response({"routes": await _with_targets(request, page), "nextCursor": next_cursor})


async def apps_routes_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/apps/{appId}/routes/{routeId}: soft-delete the route, freeing its path (if it is still
    the version `If-Match` names); answers it."""
    app_id, route_id = request.match_info["appId"], request.match_info["routeId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await app_queries.require_app(cur, caller_of(request).org.id, app_id)
        if IF_MATCH in request.headers:  # checked under the route's row lock, so no write slips in between
            check_if_match(request, record_etag(await queries.get_route(cur, app_id, route_id, for_update=True)))
        route = await queries.delete_route(cur, app_id, route_id)
    [answer] = await _with_targets(request, [route])
    return json_response(answer)
