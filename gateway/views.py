"""The gateway's own endpoints, beside the proxied routes."""

from __future__ import annotations

from aiohttp import web

from gateway import product_queries, queries
from gateway.edge.assets import REVALIDATE
from gateway.edge.envelope import ok_response
from gateway.edge.proxy import Checked
from gateway.identity.auth import key_queries
from gateway.schemas import ProductUpdate
from gateway.shapes import CREDENTIAL_KEY, CREDENTIAL_USER, PRODUCT, PRODUCT_DETAIL
from gateway.state import OPENAPI_DOCUMENT, SIGNER
from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.errors import NotFound
from libs.common.schemas import load_body, path_id
from libs.common.state import DB_POOL, caller_of

PRODUCT_UPDATE = ProductUpdate()


async def jwks(request: web.Request) -> web.Response:
    """GET /.well-known/jwks.json: the public keys that verify bearer tokens (a raw JWKS document)."""
    return json_response(request.app[SIGNER].jwks, headers={"Cache-Control": "public, max-age=300"})


async def openapi_document(request: web.Request) -> web.Response:
    """GET /api/v1/openapi.json: the OpenAPI document itself, not wrapped, as tools expect; compressed,
    and a 304 for a client holding this version (its ETag)."""
    return await request.app[OPENAPI_DOCUMENT].answer(request, REVALIDATE)


async def products_list(request: web.Request, checked: Checked) -> web.Response:
    """GET /api/v1/products: the caller's organization's live products, by name."""
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await product_queries.list_products(cur, checked.identity.organization.id)
    return ok_response([PRODUCT.of(row) for row in rows])


async def products_get(request: web.Request, checked: Checked) -> web.Response:
    """GET /api/v1/products/{productId}: the product with its brand name, aliases and owned domains."""
    assert checked.product is not None  # the route names its product: the checks found it
    async with cursor(request.app[DB_POOL]) as cur:
        row = await product_queries.product_brand(cur, checked.identity.organization.id, checked.product.id)
    if row is None:
        raise NotFound("product not found")
    return ok_response(PRODUCT_DETAIL.of(row))


async def products_update(request: web.Request, checked: Checked) -> web.Response:
    """PATCH /api/v1/products/{productId}: change the supplied brand fields."""
    assert checked.product is not None
    values = load_body(checked.body, request.content_type, PRODUCT_UPDATE)["brand"]
    async with cursor(request.app[DB_POOL]) as cur:
        row = await product_queries.update_product_brand(
            cur, checked.identity.organization.id, checked.product.id, values
        )
    if row is None:
        raise NotFound("product not found")
    return ok_response(PRODUCT_DETAIL.of(row))


async def internal_product_brand(request: web.Request) -> web.Response:
    """GET /internal/products/{productId}/brand: a live product of the caller's organization with its
    brand, for the analytics part's analysis of answers (read in its background work only)."""
    product_id = path_id(request, "productId", "product")
    async with cursor(request.app[DB_POOL]) as cur:
        row = await product_queries.product_brand(cur, caller_of(request).org.id, product_id)
    if row is None:
        raise NotFound("product not found")
    return json_response(PRODUCT_DETAIL.of(row))


async def credential_get(request: web.Request, checked: Checked) -> web.Response:
    """GET /api/v1/credential: what the request's credential is, in which organization, with which scopes."""
    identity = checked.identity
    key = user = None
    async with cursor(request.app[DB_POOL]) as cur:
        if identity.kind == "api_key":
            key = await key_queries.find_organization_key(cur, identity.organization.id, identity.principal_id)
        else:
            user = await queries.find_user_by_id(cur, identity.principal_id)
    return ok_response(
        {
            "kind": identity.credential,
            "organization": identity.organization.to_dict(),
            "scopes": sorted(identity.scopes),
            "user": None if user is None else CREDENTIAL_USER.of(user),
            "key": None if key is None else CREDENTIAL_KEY.of(key),
        }
    )


# The handlers of the gateway's own public routes (gateway/contract.py), named as their routes.
HANDLERS = (products_list, products_get, products_update, credential_get)
