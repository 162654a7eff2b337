"""Creating and listing a product's topics, which regeneration fans out over."""

from __future__ import annotations

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.personas.conftest import Stored, Tenant


def topics_path(tenant: Tenant) -> str:
    return f"/api/v1/products/{tenant.product['id']}/topics"


async def test_create_answers_201_with_the_stored_topic(tenant: Tenant, stored: Stored):
    status, answer = await tenant.call(
        "POST", topics_path(tenant), json={"name": "Usage analytics", "description": "Product usage questions."}
    )
    assert status == 201
    topic = answer["data"]
    assert topic == {
        "id": topic["id"],
        "organizationId": tenant.org.id,
        "productId": tenant.product["id"],
        "name": "Usage analytics",
        "description": "Product usage questions.",
        "createdAt": topic["createdAt"],
        "updatedAt": topic["createdAt"],
    }
    row = await stored.row("topics", topic["id"])
    assert (row["name"], row["description"], row["product_id"]) == (
        "Usage analytics",
        "Product usage questions.",
        tenant.product["id"],
    )


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({}, {"name": "Missing data for required field."}),
        ({"name": ""}, {"name": "Length must be between 1 and 200."}),
        ({"name": "t" * 201}, {"name": "Length must be between 1 and 200."}),
        ({"name": 7}, {"name": "Not a valid string."}),
        ({"name": "t", "description": ""}, {"description": "Length must be between 1 and 4000."}),
        ({"name": "t", "weight": 1}, {"weight": "Unknown field."}),
    ],
)
async def test_create_validates_the_body(tenant: Tenant, body: dict, details: dict):
    status, answer = await tenant.call("POST", topics_path(tenant), json=body)
    assert status == 422
    assert answer["details"] == details


async def test_a_topic_name_already_used_in_the_product_is_409(tenant: Tenant):
    await tenant.topic("Pricing")
    status, answer = await tenant.call("POST", topics_path(tenant), json={"name": "pricing"})
    assert status == 409
    assert answer["message"] == "another topic of this product already has this name"


async def test_list_pages_the_topics_oldest_first(tenant: Tenant):
    created = [await tenant.topic(f"Topic {index}") for index in range(3)]
    status, answer = await tenant.call("GET", topics_path(tenant), params={"limit": "2"})
    assert status == 200
    assert answer["data"] == {"topics": created[:2], "total": 3}


async def test_another_organizations_product_is_404(tenant: Tenant, stranger: Tenant):
    await tenant.topic()
    for method, body in (("GET", None), ("POST", {"name": "Theirs"})):
        status, answer = await stranger.call(method, topics_path(tenant), json=body)
        assert status == 404
        assert answer["message"] == "product not found"
    _, listing = await tenant.call("GET", topics_path(tenant))
    assert listing["data"]["total"] == 1


async def test_topics_need_the_prompts_scopes(tenant: Tenant, identity):
    no_read = await tenant.with_scopes(identity, ALL_SCOPES - {"prompts:read"})
    status, answer = await no_read.call("GET", topics_path(tenant))
    assert (status, answer["details"]) == (403, {"requiredScope": "prompts:read"})
    no_write = await tenant.with_scopes(identity, ALL_SCOPES - {"prompts:write"})
    status, answer = await no_write.call("POST", topics_path(tenant), json={"name": "t"})
    assert (status, answer["details"]) == (403, {"requiredScope": "prompts:write"})
