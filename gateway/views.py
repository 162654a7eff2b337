"""The gateway's own endpoints, beside the proxied routes."""

from __future__ import annotations

from aiohttp import web

from gateway import queries
from gateway.envelope import ok_response
from gateway.keys import OPENAPI_DOCUMENT, SIGNER
from gateway.proxy import Checked
from libs.common.db import Row, cursor
from libs.common.encoding import JSON_CONTENT_TYPE, json_response
from libs.common.keys import DB_POOL


def _product(row: Row) -> dict[str, str]:
    return {"id": str(row["id"]), "name": row["name"], "slug": row["slug"]}


async def jwks(request: web.Request) -> web.Response:
    """GET /.well-known/jwks.json: the public keys that verify bearer tokens (a raw JWKS document)."""
    return json_response(request.app[SIGNER].jwks, headers={"Cache-Control": "public, max-age=300"})


async def openapi_document(request: web.Request) -> web.Response:
    """GET /api/v1/openapi.json: the OpenAPI document itself, not wrapped, as tools expect."""
    return web.Response(body=request.app[OPENAPI_DOCUMENT], content_type=JSON_CONTENT_TYPE)


async def products_list(request: web.Request, checked: Checked) -> web.Response:
    """GET /api/v1/products: the caller's organization's live products, by name."""
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.list_products(cur, checked.identity.organization.id)
    return ok_response([_product(row) for row in rows])


# The handlers of the gateway's own public routes (gateway/contract.py), named as their routes.
HANDLERS = (products_list,)
