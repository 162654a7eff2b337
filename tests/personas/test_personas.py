"""Creating, listing and deleting a product's personas."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.personas.conftest import Stored, Tenant


def personas_path(tenant: Tenant, product_id: str | None = None) -> str:
    return f"/api/v1/products/{product_id or tenant.product['id']}/personas"


async def test_create_answers_201_with_the_stored_persona(tenant: Tenant, stored: Stored):
    body = {"name": "Platform Engineer", "description": "Runs the internal platform.", "systemPrompt": "Be exact."}
    status, answer = await tenant.call("POST", personas_path(tenant), json=body)
    assert status == 201
    persona = answer["data"]
    assert persona == {
        "id": persona["id"],
        "organizationId": tenant.org.id,
        "productId": tenant.product["id"],
        "name": "Platform Engineer",
        "description": "Runs the internal platform.",
        "systemPrompt": "Be exact.",
        "createdAt": persona["createdAt"],
        "updatedAt": persona["createdAt"],
        "deletedAt": None,
    }
    row = await stored.row("personas", persona["id"])
    assert (row["organization_id"], row["product_id"], row["name"]) == (
        tenant.org.id,
        tenant.product["id"],
        "Platform Engineer",
    )


async def test_create_without_a_system_prompt_stores_null(tenant: Tenant, stored: Stored):
    persona = await tenant.persona()
    assert persona["systemPrompt"] is None
    assert (await stored.row("personas", persona["id"]))["system_prompt"] is None


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({"description": "d"}, {"name": "Missing data for required field."}),
        ({"name": "n"}, {"description": "Missing data for required field."}),
        ({"name": "", "description": "d"}, {"name": "Length must be between 1 and 200."}),
        ({"name": "n" * 201, "description": "d"}, {"name": "Length must be between 1 and 200."}),
        ({"name": "n", "description": "d" * 4001}, {"description": "Length must be between 1 and 4000."}),
        (
            {"name": "n", "description": "d", "systemPrompt": "s" * 20_001},
            {"systemPrompt": "Longer than maximum length 20000."},
        ),
    ],
)
async def test_create_enforces_the_persona_limits(tenant: Tenant, body: dict, details: dict):
    status, answer = await tenant.call("POST", personas_path(tenant), json=body)
    assert status == 422
    assert answer["details"] == details


async def test_create_with_an_active_name_in_another_case_is_409(tenant: Tenant):
    await tenant.persona("Buyer")
    status, answer = await tenant.call("POST", personas_path(tenant), json={"name": "BUYER", "description": "d"})
    assert status == 409
    assert answer["code"] == "CONFLICT"
    _, listing = await tenant.call("GET", personas_path(tenant))
    assert [persona["name"] for persona in listing["data"]["personas"]] == ["Buyer"]


async def test_two_concurrent_creates_of_one_name_store_one_persona(tenant: Tenant):
    body = {"name": "Champion", "description": "d"}
    answers = await asyncio.gather(*(tenant.call("POST", personas_path(tenant), json=body) for _ in range(2)))
    assert sorted(status for status, _ in answers) == [201, 409]
    _, listing = await tenant.call("GET", personas_path(tenant))
    assert listing["data"]["total"] == 1


async def test_list_pages_the_active_personas_oldest_first(tenant: Tenant):
    created = [await tenant.persona(f"Persona {index}") for index in range(3)]
    status, answer = await tenant.call("GET", personas_path(tenant), params={"limit": "2", "offset": "1"})
    assert status == 200
    assert answer["data"] == {"personas": created[1:], "total": 3}


async def test_list_leaves_out_deleted_personas_and_other_products(tenant: Tenant, identity):
    kept = await tenant.persona()
    gone = await tenant.persona()
    await tenant.call("DELETE", f"/api/v1/personas/{gone['id']}")
    other_product = await identity.product(tenant.org)
    await tenant.call("POST", personas_path(tenant, other_product["id"]), json={"name": "Else", "description": "d"})
    _, answer = await tenant.call("GET", personas_path(tenant))
    assert answer["data"] == {"personas": [kept], "total": 1}


@pytest.mark.parametrize(
    ("params", "details"),
    [
        ({"limit": "0"}, {"limit": "Must be greater than or equal to 1 and less than or equal to 200."}),
        ({"limit": "201"}, {"limit": "Must be greater than or equal to 1 and less than or equal to 200."}),
        ({"offset": "-1"}, {"offset": "Must be greater than or equal to 0 and less than or equal to 1000000000."}),
        (
            {"offset": "1000000001"},
            {"offset": "Must be greater than or equal to 0 and less than or equal to 1000000000."},
        ),
        ({"sort": "name"}, {"sort": "Unknown field."}),
    ],
)
async def test_list_refuses_bad_paging_and_unknown_parameters(tenant: Tenant, params: dict, details: dict):
    status, answer = await tenant.call("GET", personas_path(tenant), params=params)
    assert status == 422
    assert answer["details"] == details


async def test_delete_is_soft_and_answers_the_deleted_persona(tenant: Tenant, stored: Stored):
    persona = await tenant.persona()
    status, answer = await tenant.call("DELETE", f"/api/v1/personas/{persona['id']}")
    assert status == 200
    assert answer["data"]["id"] == persona["id"]
    assert answer["data"]["deletedAt"] is not None
    row = await stored.row("personas", persona["id"])
    assert row["deleted_at"] is not None
    assert row["name"] == persona["name"]


async def test_deleting_twice_is_404(tenant: Tenant):
    persona = await tenant.persona()
    await tenant.call("DELETE", f"/api/v1/personas/{persona['id']}")
    status, answer = await tenant.call("DELETE", f"/api/v1/personas/{persona['id']}")
    assert status == 404
    assert answer["message"] == "persona not found"


async def test_a_deleted_name_can_be_created_again(tenant: Tenant):
    gone = await tenant.persona("Evaluator")
    await tenant.call("DELETE", f"/api/v1/personas/{gone['id']}")
    again = await tenant.persona("evaluator")
    assert again["id"] != gone["id"]


async def test_another_organizations_product_is_404_for_list_and_create(tenant: Tenant, stranger: Tenant):
    for method, body in (("GET", None), ("POST", {"name": "n", "description": "d"})):
        status, answer = await stranger.call(method, personas_path(tenant), json=body)
        assert status == 404
        assert answer == {"ok": False, "code": "NOT_FOUND", "message": "product not found"}
    _, listing = await tenant.call("GET", personas_path(tenant))
    assert listing["data"]["total"] == 0


async def test_unknown_product_is_404(tenant: Tenant):
    status, answer = await tenant.call("GET", personas_path(tenant, str(uuid.uuid4())))
    assert status == 404
    assert answer["message"] == "product not found"


async def test_another_organizations_persona_cannot_be_deleted(tenant: Tenant, stranger: Tenant, stored: Stored):
    persona = await tenant.persona()
    status, answer = await stranger.call("DELETE", f"/api/v1/personas/{persona['id']}")
    assert status == 404
    assert answer["message"] == "persona not found"
    assert (await stored.row("personas", persona["id"]))["deleted_at"] is None


async def test_reading_needs_products_read_and_writing_products_write(tenant: Tenant, identity):
    persona = await tenant.persona()
    no_read = await tenant.with_scopes(identity, ALL_SCOPES - {"products:read"})
    status, answer = await no_read.call("GET", personas_path(tenant))
    assert (status, answer["details"]) == (403, {"requiredScope": "products:read"})
    no_write = await tenant.with_scopes(identity, ALL_SCOPES - {"products:write"})
    for method, path, body in (
        ("POST", personas_path(tenant), {"name": "n", "description": "d"}),
        ("DELETE", f"/api/v1/personas/{persona['id']}", None),
    ):
        status, answer = await no_write.call(method, path, json=body)
        assert (status, answer["details"]) == (403, {"requiredScope": "products:write"})
