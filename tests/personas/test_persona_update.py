"""PUT /api/v1/personas/{personaId}: only the supplied fields change, within the contract's limits."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.personas.conftest import Stored, Tenant


async def put(tenant: Tenant, persona_id: str, body: object) -> tuple[int, dict]:
    return await tenant.call("PUT", f"/api/v1/personas/{persona_id}", json=body)


@pytest.mark.parametrize("size", [1, 200])
async def test_name_at_its_limits_is_accepted(tenant: Tenant, stored: Stored, size: int):
    persona = await tenant.persona()
    status, body = await put(tenant, persona["id"], {"name": "n" * size})
    assert status == 200
    assert body["data"]["name"] == "n" * size
    assert (await stored.row("personas", persona["id"]))["name"] == "n" * size


@pytest.mark.parametrize("size", [0, 201])
async def test_name_outside_its_limits_is_422(tenant: Tenant, stored: Stored, size: int):
    persona = await tenant.persona()
    status, body = await put(tenant, persona["id"], {"name": "n" * size})
    assert status == 422
    assert body["code"] == "VALIDATION_FAILED"
    assert body["details"] == {"name": "Length must be between 1 and 200."}
    assert (await stored.row("personas", persona["id"]))["name"] == persona["name"]


@pytest.mark.parametrize("size", [1, 4000])
async def test_description_at_its_limits_is_accepted(tenant: Tenant, stored: Stored, size: int):
    persona = await tenant.persona()
    status, body = await put(tenant, persona["id"], {"description": "d" * size})
    assert status == 200
    assert body["data"]["description"] == "d" * size
    assert (await stored.row("personas", persona["id"]))["description"] == "d" * size


@pytest.mark.parametrize("size", [0, 4001])
async def test_description_outside_its_limits_is_422(tenant: Tenant, size: int):
    persona = await tenant.persona()
    status, body = await put(tenant, persona["id"], {"description": "d" * size})
    assert status == 422
    assert body["details"] == {"description": "Length must be between 1 and 4000."}


@pytest.mark.parametrize("value", ["", "s" * 20_000, None])
async def test_system_prompt_up_to_20000_characters_or_null_is_accepted(tenant: Tenant, stored: Stored, value):
    persona = await tenant.persona(systemPrompt="before")
    status, body = await put(tenant, persona["id"], {"systemPrompt": value})
    assert status == 200
    assert body["data"]["systemPrompt"] == value
    assert (await stored.row("personas", persona["id"]))["system_prompt"] == value


async def test_system_prompt_of_20001_characters_is_422(tenant: Tenant, stored: Stored):
    persona = await tenant.persona(systemPrompt="before")
    status, body = await put(tenant, persona["id"], {"systemPrompt": "s" * 20_001})
    assert status == 422
    assert body["details"] == {"systemPrompt": "Longer than maximum length 20000."}
    assert (await stored.row("personas", persona["id"]))["system_prompt"] == "before"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", 5, "Not a valid string."),
        ("name", None, "Field may not be null."),
        ("description", ["a"], "Not a valid string."),
        ("description", None, "Field may not be null."),
        ("systemPrompt", True, "Not a valid string."),
        ("nickname", "x", "Unknown field."),
    ],
)
async def test_wrong_types_and_unknown_fields_are_422(tenant: Tenant, field: str, value, message: str):
    persona = await tenant.persona()
    status, body = await put(tenant, persona["id"], {field: value})
    assert status == 422
    assert body["details"] == {field: message}


async def test_a_body_that_is_not_an_object_is_422(tenant: Tenant):
    persona = await tenant.persona()
    status, body = await put(tenant, persona["id"], ["name"])
    assert status == 422
    assert body["code"] == "VALIDATION_FAILED"


async def test_a_body_that_is_not_json_is_400(tenant: Tenant):
    persona = await tenant.persona()
    status, body = await tenant.call(
        "PUT", f"/api/v1/personas/{persona['id']}", data="{", headers={"Content-Type": "application/json"}
    )
    assert status == 400
    assert body == {"ok": False, "code": "BAD_REQUEST", "message": "the body is not valid JSON"}


async def test_partial_update_leaves_the_other_fields_alone(tenant: Tenant, stored: Stored):
    persona = await tenant.persona("Analyst", description="Reads dashboards.", systemPrompt="Be brief.")
    status, body = await put(tenant, persona["id"], {"description": "Builds dashboards."})
    assert status == 200
    assert body["data"] == {
        **persona,
        "description": "Builds dashboards.",
        "updatedAt": body["data"]["updatedAt"],
    }
    assert datetime.fromisoformat(body["data"]["updatedAt"]) > datetime.fromisoformat(persona["updatedAt"])
    row = await stored.row("personas", persona["id"])
    assert (row["name"], row["description"], row["system_prompt"]) == ("Analyst", "Builds dashboards.", "Be brief.")


async def test_an_empty_body_changes_nothing(tenant: Tenant):
    persona = await tenant.persona()
    status, body = await put(tenant, persona["id"], {})
    assert status == 200
    assert body["data"] == persona


async def test_a_name_taken_by_another_active_persona_is_409_whatever_its_case(tenant: Tenant, stored: Stored):
    await tenant.persona("Head of Growth")
    persona = await tenant.persona("Founder")
    status, body = await put(tenant, persona["id"], {"name": "HEAD OF GROWTH"})
    assert status == 409
    assert body == {
        "ok": False,
        "code": "CONFLICT",
        "message": "another active persona of this product already has this name",
    }
    assert (await stored.row("personas", persona["id"]))["name"] == "Founder"


async def test_changing_only_the_case_of_its_own_name_is_allowed(tenant: Tenant):
    persona = await tenant.persona("founder")
    status, body = await put(tenant, persona["id"], {"name": "Founder"})
    assert status == 200
    assert body["data"]["name"] == "Founder"


async def test_the_same_name_in_another_product_is_allowed(tenant: Tenant, identity):
    other_product = await identity.product(tenant.org, name="Other")
    status, _ = await tenant.call(
        "POST", f"/api/v1/products/{other_product['id']}/personas", json={"name": "Buyer", "description": "d"}
    )
    assert status == 201
    persona = await tenant.persona("Seller")
    status, body = await put(tenant, persona["id"], {"name": "buyer"})
    assert status == 200
    assert body["data"]["name"] == "buyer"


async def test_a_deleted_personas_name_is_free_again(tenant: Tenant):
    gone = await tenant.persona("Procurement")
    status, _ = await tenant.call("DELETE", f"/api/v1/personas/{gone['id']}")
    assert status == 200
    persona = await tenant.persona("Legal")
    status, body = await put(tenant, persona["id"], {"name": "procurement"})
    assert status == 200
    assert body["data"]["name"] == "procurement"


async def test_two_concurrent_renames_to_one_name_see_exactly_one_win(tenant: Tenant, stored: Stored):
    first, second = await tenant.persona(), await tenant.persona()
    answers = await asyncio.gather(
        put(tenant, first["id"], {"name": "Decision Maker"}),
        put(tenant, second["id"], {"name": "decision maker"}),
    )
    assert sorted(status for status, _ in answers) == [200, 409]
    rows = [await stored.row("personas", persona["id"]) for persona in (first, second)]
    assert sorted(row["name"].lower() == "decision maker" for row in rows) == [False, True]


async def test_unknown_and_malformed_ids_are_404(tenant: Tenant):
    for persona_id in (str(uuid.uuid4()), "not-a-uuid"):
        status, body = await put(tenant, persona_id, {"name": "x"})
        assert status == 404
        assert body == {"ok": False, "code": "NOT_FOUND", "message": "persona not found"}


async def test_a_deleted_persona_is_404(tenant: Tenant):
    persona = await tenant.persona()
    await tenant.call("DELETE", f"/api/v1/personas/{persona['id']}")
    status, body = await put(tenant, persona["id"], {"name": "x"})
    assert status == 404
    assert body["code"] == "NOT_FOUND"


async def test_another_organizations_persona_is_404_and_unchanged(tenant: Tenant, stranger: Tenant, stored: Stored):
    persona = await tenant.persona("Mine")
    status, body = await put(stranger, persona["id"], {"name": "Theirs"})
    assert status == 404
    assert body == {"ok": False, "code": "NOT_FOUND", "message": "persona not found"}
    assert (await stored.row("personas", persona["id"]))["name"] == "Mine"


async def test_updating_needs_products_write(tenant: Tenant, identity, stored: Stored):
    persona = await tenant.persona("Kept")
    reader = await tenant.with_scopes(identity, ALL_SCOPES - {"products:write"})
    status, body = await put(reader, persona["id"], {"name": "x"})
    assert status == 403
    assert body["details"] == {"requiredScope": "products:write"}
    assert (await stored.row("personas", persona["id"]))["name"] == "Kept"
