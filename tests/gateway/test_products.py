"""GET /api/v1/products: the caller's organization's products, served by the gateway itself."""

from __future__ import annotations

from libs.common.db import transaction
from tests.factories import IdentityFactory


async def test_lists_only_the_callers_live_products_by_name(gateway, identity: IdentityFactory):
    org, other = await identity.organization(), await identity.organization()
    zeta, alpha = await identity.product(org, "Zeta"), await identity.product(org, "Alpha")
    gone = await identity.product(org, "Gone")
    await identity.product(other, "Theirs")
    async with transaction(identity.pool) as cur:
        await cur.execute("UPDATE products SET deleted_at = now() WHERE id = %s", (gone["id"],))
    response = await gateway.get("/api/v1/products", headers={"x-api-key": await identity.api_key(org)})
    assert response.status == 200
    assert await response.json() == {"ok": True, "data": [alpha, zeta]}


async def test_an_organization_without_products_gets_an_empty_list(gateway, identity: IdentityFactory):
    org = await identity.organization()
    response = await gateway.get("/api/v1/products", headers={"x-api-key": await identity.api_key(org)})
    assert (response.status, await response.json()) == (200, {"ok": True, "data": []})


async def test_needs_the_products_read_scope(gateway, identity: IdentityFactory):
    org = await identity.organization()
    await identity.product(org)
    key = await identity.api_key(org, frozenset({"content:read"}))
    response = await gateway.get("/api/v1/products", headers={"x-api-key": key})
    assert response.status == 403
    assert (await response.json())["details"] == {"requiredScope": "products:read"}
    assert (await gateway.get("/api/v1/products")).status == 401


async def test_a_members_session_sees_its_organizations_products(gateway, identity: IdentityFactory):
    org = await identity.organization()
    product = await identity.product(org, "Mine")
    cookie = await identity.session(await identity.user(org, role="viewer"), org)
    response = await gateway.get("/api/v1/products", headers={"Cookie": f"app-auth.session_token={cookie}"})
    assert (response.status, (await response.json())["data"]) == (200, [product])


async def test_is_documented_with_its_scope(gateway):
    document = await (await gateway.get("/api/v1/openapi.json")).json()
    operation = document["paths"]["/api/v1/products"]["get"]
    assert operation["x-required-scope"] == "products:read"
    data = operation["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]
    assert data == {"type": "array", "items": {"$ref": "#/components/schemas/Product"}}
    assert set(document["components"]["schemas"]["Product"]["required"]) == {"id", "name", "slug"}
