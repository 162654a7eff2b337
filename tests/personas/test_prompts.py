"""Tracked prompts of a product: create, read, edit (a new text is a new version), archive, list
by filters and cursor, and nothing of another organization's."""

from __future__ import annotations

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.personas.conftest import Stored, Tenant


def prompts_path(tenant: Tenant) -> str:
    return f"/api/v1/products/{tenant.product['id']}/prompts"


async def track(tenant: Tenant, text: str, **fields: object) -> dict:
    status, answer = await tenant.call("POST", prompts_path(tenant), json={"text": text, **fields})
    assert status == 201, answer
    return answer["data"]


async def test_create_answers_the_stored_prompt_with_defaults(tenant: Tenant, stored: Stored):
    topic = await tenant.topic("Pricing")
    prompt = await track(tenant, "Best analytics tool for startups?", topicId=topic["id"], tags=["pricing"])
    assert prompt == {
        "id": prompt["id"],
        "organizationId": tenant.org.id,
        "productId": tenant.product["id"],
        "text": "Best analytics tool for startups?",
        "topicId": topic["id"],
        "personaId": None,
        "suggestionId": None,
        "tags": ["pricing"],
        "engines": [],
        "cadence": "daily",
        "samples": 1,
        "status": "active",
        "version": 1,
        "createdAt": prompt["createdAt"],
        "updatedAt": prompt["createdAt"],
    }
    row = await stored.row("prompts", prompt["id"])
    assert row is not None and (row["text"], row["topic_id"], row["version"]) == (prompt["text"], topic["id"], 1)


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({}, {"text": "Missing data for required field."}),
        ({"text": ""}, {"text": "Length must be between 1 and 2000."}),
        ({"text": "q", "samples": 6}, {"samples": "Must be greater than or equal to 1 and less than or equal to 5."}),
        ({"text": "q", "samples": 0}, {"samples": "Must be greater than or equal to 1 and less than or equal to 5."}),
        ({"text": "q", "cadence": "hourly"}, {"cadence": "Must be one of: daily, weekly, manual."}),
        (
            {"text": "q", "engines": ["bing"]},
            {"engines.0": "Must be one of: openai-search, perplexity-sonar, anthropic-web."},
        ),
        ({"text": "q", "status": "archived"}, {"status": "Must be one of: active, paused."}),
        ({"text": "q", "topicId": "nope"}, {"topicId": "Not a valid UUID."}),
    ],
)
async def test_create_validates_the_body(tenant: Tenant, body: dict, details: dict):
    status, answer = await tenant.call("POST", prompts_path(tenant), json=body)
    assert (status, answer["details"]) == (422, details)


async def test_a_topic_of_another_product_is_422(tenant: Tenant, stranger: Tenant):
    theirs = await stranger.topic("Theirs")
    status, answer = await tenant.call("POST", prompts_path(tenant), json={"text": "q", "topicId": theirs["id"]})
    assert (status, answer["details"]) == (422, {"topicId": "No live topic of this product."})


async def test_a_new_text_is_a_new_version_and_other_edits_are_not(tenant: Tenant):
    prompt = await track(tenant, "Best CRM?")
    path = f"/api/v1/prompts/{prompt['id']}"
    _, tagged = await tenant.call("PATCH", path, json={"tags": ["crm"], "samples": 3})
    assert (tagged["data"]["version"], tagged["data"]["tags"], tagged["data"]["samples"]) == (1, ["crm"], 3)
    _, same = await tenant.call("PATCH", path, json={"text": "Best CRM?"})
    assert same["data"]["version"] == 1
    status, edited = await tenant.call("PATCH", path, json={"text": "Best CRM for a small team?"})
    assert (status, edited["data"]["version"], edited["data"]["text"]) == (200, 2, "Best CRM for a small team?")
    _, read = await tenant.call("GET", path)
    assert read["data"] == edited["data"]


async def test_archive_frees_the_text_and_unarchive_takes_it_back(tenant: Tenant):
    prompt = await track(tenant, "Best CRM?")
    status, archived = await tenant.call("POST", f"/api/v1/prompts/{prompt['id']}/archive")
    assert (status, archived["data"]["status"]) == (200, "archived")
    status, answer = await tenant.call("PATCH", f"/api/v1/prompts/{prompt['id']}", json={"status": "active"})
    assert (status, answer["message"]) == (409, "the prompt is archived: unarchive it first")
    again = await track(tenant, "best crm?")
    status, answer = await tenant.call("POST", f"/api/v1/prompts/{prompt['id']}/unarchive")
    assert (status, answer["message"]) == (409, "this product already tracks a prompt with this text")
    await tenant.call("POST", f"/api/v1/prompts/{again['id']}/archive")
    status, back = await tenant.call("POST", f"/api/v1/prompts/{prompt['id']}/unarchive")
    assert (status, back["data"]["status"]) == (200, "active")


async def test_the_list_filters_and_pages_newest_first(tenant: Tenant):
    weekly = [await track(tenant, f"Weekly {index}", cadence="weekly", tags=["w"]) for index in range(3)]
    daily = await track(tenant, "Daily", engines=["perplexity-sonar"])
    _, all_ = await tenant.call("GET", prompts_path(tenant))
    assert [item["id"] for item in all_["data"]["items"]] == [daily["id"], *(p["id"] for p in reversed(weekly))]
    _, by_engine = await tenant.call("GET", prompts_path(tenant), params={"engine": "perplexity-sonar"})
    assert [item["id"] for item in by_engine["data"]["items"]] == [daily["id"]]
    seen, cursor = [], None
    while True:
        params = {"tag": "w", "limit": "2", **({"cursor": cursor} if cursor else {})}
        _, page = await tenant.call("GET", prompts_path(tenant), params=params)
        seen += [item["id"] for item in page["data"]["items"]]
        cursor = page["data"]["nextCursor"]
        if cursor is None:
            break
    assert seen == [p["id"] for p in reversed(weekly)]


async def test_prompts_of_another_organization_are_404(tenant: Tenant, stranger: Tenant):
    prompt = await track(tenant, "Best CRM?")
    for method, path in (
        ("GET", f"/api/v1/prompts/{prompt['id']}"),
        ("PATCH", f"/api/v1/prompts/{prompt['id']}"),
        ("POST", f"/api/v1/prompts/{prompt['id']}/archive"),
    ):
        status, answer = await stranger.call(method, path, json={} if method == "PATCH" else None)
        assert (status, answer["message"]) == (404, "prompt not found")
    status, _ = await stranger.call("GET", prompts_path(tenant))
    assert status == 404
    _, read = await tenant.call("GET", f"/api/v1/prompts/{prompt['id']}")
    assert read["data"]["status"] == "active"


async def test_prompts_need_the_prompts_scopes(tenant: Tenant, identity):
    no_write = await tenant.with_scopes(identity, ALL_SCOPES - {"prompts:write"})
    status, answer = await no_write.call("POST", prompts_path(tenant), json={"text": "q"})
    assert (status, answer["details"]) == (403, {"requiredScope": "prompts:write"})
    no_read = await tenant.with_scopes(identity, ALL_SCOPES - {"prompts:read"})
    status, answer = await no_read.call("GET", prompts_path(tenant))
    assert (status, answer["details"]) == (403, {"requiredScope": "prompts:read"})


async def test_accepting_a_suggestion_can_track_it_once(tenant: Tenant, stored: Stored):
    await tenant.topic("Pricing")
    await tenant.persona("Buyer")
    status, _ = await tenant.regenerate()
    assert status == 200
    suggestion = (await tenant.suggestions())[0]
    path = f"/api/v1/prompt-suggestions/{suggestion['id']}"
    status, refused = await tenant.call("PATCH", path, json={"status": "rejected", "track": True})
    assert (status, refused["details"]) == (422, {"track": "Only an accepted suggestion is tracked."})
    status, reviewed = await tenant.call("PATCH", path, json={"status": "accepted", "track": True})
    assert status == 200 and reviewed["data"]["status"] == "accepted"
    prompt_id = reviewed["data"]["trackedPromptId"]
    _, prompt = await tenant.call("GET", f"/api/v1/prompts/{prompt_id}")
    assert (prompt["data"]["text"], prompt["data"]["topicId"], prompt["data"]["suggestionId"]) == (
        suggestion["prompt"],
        suggestion["topicId"],
        suggestion["id"],
    )
    _, again = await tenant.call("PATCH", path, json={"status": "accepted", "track": True})
    assert again["data"]["trackedPromptId"] == prompt_id
    _, listing = await tenant.call("GET", prompts_path(tenant))
    assert [item["id"] for item in listing["data"]["items"]] == [prompt_id]
    _, plain = await tenant.call("PATCH", path, json={"status": "accepted"})
    assert "trackedPromptId" not in plain["data"]
