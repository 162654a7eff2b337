"""Handlers of an app's resources (products)."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import ValidationFailed
from libs.common.schemas import load_json
from libs.common.state import DB_POOL, caller_of
from services.apps.products import products_by_id
from services.apps.queries import apps as queries
from services.apps.queries import products as product_queries
from services.apps.schemas.requests import ResourceCreate
from services.apps.shapes import RESOURCE

RESOURCE_CREATE = ResourceCreate()


async def apps_resources_list(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/resources: the app's resources, each with its product's name and slug."""
    app_id = request.match_info["appId"]
    async with cursor(request.app[DB_POOL]) as cur:
        await queries.require_app(cur, caller_of(request).org.id, app_id)
        rows = await queries.list_resource_rows(cur, app_id)
        products = await products_by_id(request, cur, [str(row["resource_id"]) for row in rows])
    return json_response([{**RESOURCE.of(row), "product": products.get(str(row["resource_id"]))} for row in rows])


async def apps_resources_create(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/resources: add one of the organization's products to the app.

    The gateway has read the product from its database for this request (the route's
    `product_reference`) and names it in the token when it is a live product of the caller's
    organization: that, not this service's copy, decides, so a product created or deleted by a
    call that has returned is honoured at once.
    """
    data = await load_json(request, RESOURCE_CREATE)
    caller = caller_of(request)
    product = caller.product if caller.product is not None and caller.product.id == data["resource_id"] else None
    app_id = request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await queries.require_app(cur, caller.org.id, app_id, lock=True)
        if product is None:
            raise ValidationFailed(details={"resourceId": "No such product in this organization."})
        await product_queries.learn_checked(cur, caller.org.id, product)
        resource = await queries.create_resource(cur, caller.org.id, app_id, data["resource_type"], product.id)
    return json_response(resource, status=201)


async def apps_resources_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/apps/{appId}/resources/{appResourceId}: soft-delete the resource; answers it."""
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await queries.require_app(cur, organization_id, app_id)
        resource = await queries.delete_resource(cur, app_id, request.match_info["appResourceId"])
    return json_response(resource)
