"""Listing a product's prompt suggestions and reviewing them."""

from __future__ import annotations

import uuid

import pytest

from tests.personas.conftest import Stored, Tenant

SUGGESTIONS = "/api/v1/prompt-suggestions"


async def regenerated(tenant: Tenant, *topic_names: str) -> list[dict]:
    """Topics of these names, regenerated; returns the suggestions in list order."""
    for name in topic_names:
        await tenant.topic(name)
    status, answer = await tenant.regenerate()
    assert status == 200, answer
    return await tenant.suggestions()


async def review(tenant: Tenant, suggestion_id: str, status: str) -> tuple[int, dict]:
    return await tenant.call("PATCH", f"{SUGGESTIONS}/{suggestion_id}", json={"status": status})


async def test_list_pages_with_limit_and_offset_and_counts_the_total(tenant: Tenant):
    everything = await regenerated(tenant, "Pricing")
    status, answer = await tenant.call(
        "GET", SUGGESTIONS, params={"productId": tenant.product["id"], "limit": "2", "offset": "1"}
    )
    assert status == 200
    assert answer["data"] == {"suggestions": everything[1:3], "total": len(everything)}


async def test_list_filters_by_topic(tenant: Tenant):
    await regenerated(tenant, "Pricing", "Security")
    _, listing = await tenant.call("GET", f"/api/v1/products/{tenant.product['id']}/topics")
    security = listing["data"]["topics"][1]
    only = await tenant.suggestions(topicId=security["id"])
    assert only
    assert {suggestion["topicId"] for suggestion in only} == {security["id"]}
    assert all("Security" in suggestion["prompt"] for suggestion in only)


async def test_list_filters_by_status(tenant: Tenant):
    suggestions = await regenerated(tenant, "Pricing")
    await review(tenant, suggestions[0]["id"], "accepted")
    accepted = await tenant.suggestions(status="accepted")
    assert [suggestion["id"] for suggestion in accepted] == [suggestions[0]["id"]]
    assert len(await tenant.suggestions(status="pending")) == len(suggestions) - 1


@pytest.mark.parametrize(
    ("params", "details"),
    [
        ({}, {"productId": "Missing data for required field."}),
        ({"status": "archived"}, {"status": "Must be one of: pending, accepted, rejected."}),
        ({"topicId": "pricing"}, {"topicId": "Not a valid UUID."}),
        ({"page": "2"}, {"page": "Unknown field."}),
        ({"limit": "500"}, {"limit": "Must be greater than or equal to 1 and less than or equal to 200."}),
    ],
)
async def test_list_refuses_missing_product_bad_filters_and_unknown_parameters(
    tenant: Tenant, params: dict, details: dict
):
    query = {"productId": tenant.product["id"], **params} if params else {}
    status, answer = await tenant.call("GET", SUGGESTIONS, params=query)
    assert status == 422
    assert answer["details"] == details


async def test_list_of_another_organizations_product_is_404(tenant: Tenant, stranger: Tenant):
    await regenerated(tenant, "Pricing")
    status, answer = await stranger.call("GET", SUGGESTIONS, params={"productId": tenant.product["id"]})
    assert status == 404
    assert answer["message"] == "product not found"


async def test_review_sets_the_status_and_stores_it(tenant: Tenant, stored: Stored):
    suggestion = (await regenerated(tenant, "Pricing"))[0]
    status, answer = await review(tenant, suggestion["id"], "rejected")
    assert status == 200
    assert answer["data"] == {**suggestion, "status": "rejected", "updatedAt": answer["data"]["updatedAt"]}
    assert (await stored.row("prompt_suggestions", suggestion["id"]))["status"] == "rejected"


async def test_review_refuses_an_unknown_status(tenant: Tenant):
    suggestion = (await regenerated(tenant, "Pricing"))[0]
    status, answer = await review(tenant, suggestion["id"], "archived")
    assert status == 422
    assert answer["details"] == {"status": "Must be one of: pending, accepted, rejected."}


async def test_review_of_an_unknown_or_replaced_suggestion_is_404(tenant: Tenant):
    replaced = (await regenerated(tenant, "Pricing"))[0]
    await tenant.regenerate()
    for suggestion_id in (replaced["id"], str(uuid.uuid4())):
        status, answer = await review(tenant, suggestion_id, "accepted")
        assert status == 404
        assert answer["message"] == "prompt suggestion not found"


async def test_regenerate_is_never_read_as_a_suggestion_id(tenant: Tenant):
    for method in ("PATCH", "OPTIONS"):
        async with tenant.gateway.request(method, f"{SUGGESTIONS}/regenerate") as response:
            assert response.status == 405
            assert response.headers["Allow"] == "POST"


async def test_another_organization_cannot_review_a_suggestion(tenant: Tenant, stranger: Tenant, stored: Stored):
    suggestion = (await regenerated(tenant, "Pricing"))[0]
    status, _ = await review(stranger, suggestion["id"], "accepted")
    assert status == 404
    assert (await stored.row("prompt_suggestions", suggestion["id"]))["status"] == "pending"
