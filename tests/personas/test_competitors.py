"""A product's brand (the gateway's products) and its competitors (the personas part), each change of
a competitor bumping the product's competitor-set version."""

from __future__ import annotations

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.personas.conftest import Stored, Tenant

TWICE = "Must not hold the same value twice (compared case-insensitively)."


def competitors_path(tenant: Tenant) -> str:
    return f"/api/v1/products/{tenant.product['id']}/competitors"


async def add(tenant: Tenant, name: str, **fields: object) -> dict:
    status, answer = await tenant.call("POST", competitors_path(tenant), json={"name": name, **fields})
    assert status == 201, answer
    return answer["data"]


async def test_a_product_answers_its_brand_defaulting_to_its_name(tenant: Tenant):
    status, answer = await tenant.call("GET", f"/api/v1/products/{tenant.product['id']}")
    assert status == 200
    assert answer["data"] == {
        **tenant.product,
        "brand": {"name": "Acme Analytics", "aliases": [], "domains": []},
        "updatedAt": answer["data"]["updatedAt"],
    }


async def test_patching_the_brand_changes_only_the_supplied_fields(tenant: Tenant):
    path = f"/api/v1/products/{tenant.product['id']}"
    status, answer = await tenant.call("PATCH", path, json={"brand": {"aliases": ["Acme", "ACME Corp"]}})
    assert status == 200
    assert answer["data"]["brand"] == {"name": "Acme Analytics", "aliases": ["Acme", "ACME Corp"], "domains": []}
    status, answer = await tenant.call("PATCH", path, json={"brand": {"name": "Acme", "domains": ["acme.com"]}})
    assert answer["data"]["brand"] == {"name": "Acme", "aliases": ["Acme", "ACME Corp"], "domains": ["acme.com"]}
    _, read = await tenant.call("GET", path)
    assert read["data"]["brand"] == answer["data"]["brand"]
    _, reset = await tenant.call("PATCH", path, json={"brand": {"name": None}})
    assert reset["data"]["brand"]["name"] == "Acme Analytics"


@pytest.mark.parametrize(
    ("brand", "details"),
    [
        ({"domains": ["Acme.com"]}, {"brand.domains.0": "Must be lowercase: use acme.com."}),
        ({"domains": ["not a host"]}, {"brand.domains.0": "Must be a lowercase hostname such as example.com."}),
        ({"aliases": ["A", "a"]}, {"brand.aliases": TWICE}),
        ({"aliases": [""]}, {"brand.aliases.0": "Length must be between 1 and 200."}),
        ({"aliases": [f"x{index}" for index in range(21)]}, {"brand.aliases": "Longer than maximum length 20."}),
        ({"slogan": "x"}, {"brand.slogan": "Unknown field."}),
    ],
)
async def test_a_bad_brand_is_422_naming_the_field(tenant: Tenant, brand: dict, details: dict):
    status, answer = await tenant.call("PATCH", f"/api/v1/products/{tenant.product['id']}", json={"brand": brand})
    assert (status, answer["details"]) == (422, details)


async def test_the_brand_of_another_organization_is_404(tenant: Tenant, stranger: Tenant):
    path = f"/api/v1/products/{tenant.product['id']}"
    for method, body in (("GET", None), ("PATCH", {"brand": {"name": "Theirs"}})):
        status, answer = await stranger.call(method, path, json=body)
        assert (status, answer["message"]) == (404, "product not found")
    _, read = await tenant.call("GET", path)
    assert read["data"]["brand"]["name"] == "Acme Analytics"


async def test_patching_the_brand_needs_products_write(tenant: Tenant, identity):
    reader = await tenant.with_scopes(identity, ALL_SCOPES - {"products:write"})
    status, answer = await reader.call("PATCH", f"/api/v1/products/{tenant.product['id']}", json={"brand": {}})
    assert (status, answer["details"]) == (403, {"requiredScope": "products:write"})


async def test_every_competitor_change_bumps_the_set_version(tenant: Tenant, stored: Stored):
    first = await add(tenant, "Globex", aliases=["Globex Corporation"], domains=["globex.com"])
    assert first["competitorSetVersion"] == 1
    assert (first["name"], first["aliases"], first["domains"], first["deletedAt"]) == (
        "Globex",
        ["Globex Corporation"],
        ["globex.com"],
        None,
    )
    second = await add(tenant, "Initech")
    assert second["competitorSetVersion"] == 2
    status, changed = await tenant.call("PATCH", f"/api/v1/competitors/{first['id']}", json={"aliases": []})
    assert (status, changed["data"]["aliases"], changed["data"]["competitorSetVersion"]) == (200, [], 3)
    status, deleted = await tenant.call("DELETE", f"/api/v1/competitors/{second['id']}")
    assert status == 200 and deleted["data"]["deletedAt"] is not None
    assert deleted["data"]["competitorSetVersion"] == 4
    row = await stored.row("competitors", second["id"])
    assert row is not None and row["deleted_at"] is not None
    status, listing = await tenant.call("GET", competitors_path(tenant))
    current = {**changed["data"], "competitorSetVersion": 4}
    assert listing["data"] == {"items": [current], "nextCursor": None, "competitorSetVersion": 4}
    status, gone = await tenant.call("GET", f"/api/v1/competitors/{second['id']}")
    assert status == 404


async def test_a_competitor_name_is_unique_in_the_product_until_deleted(tenant: Tenant):
    first = await add(tenant, "Globex")
    status, answer = await tenant.call("POST", competitors_path(tenant), json={"name": "GLOBEX"})
    assert (status, answer["message"]) == (409, "another competitor of this product already has this name")
    await tenant.call("DELETE", f"/api/v1/competitors/{first['id']}")
    assert (await add(tenant, "globex"))["name"] == "globex"


async def test_competitors_page_newest_first_by_cursor(tenant: Tenant):
    created = [await add(tenant, f"Rival {index}") for index in range(5)]
    status, first = await tenant.call("GET", competitors_path(tenant), params={"limit": "2"})
    assert [item["name"] for item in first["data"]["items"]] == ["Rival 4", "Rival 3"]
    seen = [item["id"] for item in first["data"]["items"]]
    cursor = first["data"]["nextCursor"]
    while cursor:
        _, page = await tenant.call("GET", competitors_path(tenant), params={"limit": "2", "cursor": cursor})
        seen += [item["id"] for item in page["data"]["items"]]
        cursor = page["data"]["nextCursor"]
    assert seen == [competitor["id"] for competitor in reversed(created)]
    status, bad = await tenant.call("GET", competitors_path(tenant), params={"cursor": "nope"})
    assert status == 422 and "cursor" in bad["details"]


async def test_competitors_of_another_organization_are_404(tenant: Tenant, stranger: Tenant):
    competitor = await add(tenant, "Globex")
    for method, body in (("GET", None), ("PATCH", {"name": "Mine"}), ("DELETE", None)):
        status, answer = await stranger.call(method, f"/api/v1/competitors/{competitor['id']}", json=body)
        assert (status, answer["message"]) == (404, "competitor not found")
    status, _ = await stranger.call("GET", competitors_path(tenant))
    assert status == 404
    _, read = await tenant.call("GET", f"/api/v1/competitors/{competitor['id']}")
    assert read["data"] == competitor


async def test_competitors_need_the_products_scopes(tenant: Tenant, identity):
    no_write = await tenant.with_scopes(identity, ALL_SCOPES - {"products:write"})
    status, answer = await no_write.call("POST", competitors_path(tenant), json={"name": "Globex"})
    assert (status, answer["details"]) == (403, {"requiredScope": "products:write"})
    no_read = await tenant.with_scopes(identity, ALL_SCOPES - {"products:read"})
    status, answer = await no_read.call("GET", competitors_path(tenant))
    assert (status, answer["details"]) == (403, {"requiredScope": "products:read"})
