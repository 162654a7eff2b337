"""POST /api/v1/prompt-suggestions/regenerate: one job per topic, all or nothing, one at a time."""

from __future__ import annotations

import asyncio

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from services.personas.generator import GeneratedPrompt, GenerationInput, TemplateGenerator
from tests.personas.conftest import StartWithGenerator, Stored, Tenant

REGENERATE = "/api/v1/prompt-suggestions/regenerate"


class FailsForTopic(TemplateGenerator):
    """The default generator, except that one topic's job fails."""

    def __init__(self, topic_name: str) -> None:
        self.topic_name = topic_name

    async def generate(self, source: GenerationInput) -> list[GeneratedPrompt]:
        if source.topic.name == self.topic_name:
            raise RuntimeError("the provider is down")
        return await super().generate(source)


class Gated(TemplateGenerator):
    """The default generator, holding every job at a gate the test opens; counts the jobs that came."""

    def __init__(self) -> None:
        self.arrived = 0
        self.gate = asyncio.Event()

    async def generate(self, source: GenerationInput) -> list[GeneratedPrompt]:
        self.arrived += 1
        await self.gate.wait()
        return await super().generate(source)


def live(rows: list[dict]) -> list[dict]:
    return [row for row in rows if row["deleted_at"] is None]


async def test_each_topic_gets_prompts_from_itself_the_product_and_the_personas(tenant: Tenant, stored: Stored):
    persona = await tenant.persona("Data Lead")
    pricing, security = await tenant.topic("pricing plans"), await tenant.topic("data security")
    status, answer = await tenant.regenerate()
    assert status == 200
    rows = await stored.suggestions(tenant.product["id"])
    assert answer["data"] == {"count": 12, "ids": [row["id"] for row in rows]}
    for topic in (pricing, security):
        prompts = [row for row in rows if row["topic_id"] == topic["id"]]
        assert len(prompts) == 6
        assert all(topic["name"] in row["prompt"] for row in prompts)
        assert any("Acme Analytics" in row["prompt"] for row in prompts)
        by_persona = [row for row in prompts if row["persona_id"] is not None]
        assert [row["persona_id"] for row in by_persona] == [persona["id"]] * 2
        assert all("Data Lead" in row["prompt"] for row in by_persona)
    assert {row["status"] for row in rows} == {"pending"}
    assert all(row["updated_at"] == row["created_at"] for row in rows)


async def test_deleted_personas_take_no_part(tenant: Tenant, stored: Stored):
    gone = await tenant.persona("Former Buyer")
    await tenant.call("DELETE", f"/api/v1/personas/{gone['id']}")
    await tenant.topic("pricing plans")
    status, answer = await tenant.regenerate()
    assert status == 200
    assert answer["data"]["count"] == 4
    assert all(row["persona_id"] is None for row in await stored.suggestions(tenant.product["id"]))


async def test_regenerating_replaces_pending_suggestions_and_keeps_reviewed_ones(tenant: Tenant, stored: Stored):
    await tenant.topic("pricing plans")
    _, first = await tenant.regenerate()
    accepted, rejected, *pending = first["data"]["ids"]
    await tenant.call("PATCH", f"/api/v1/prompt-suggestions/{accepted}", json={"status": "accepted"})
    await tenant.call("PATCH", f"/api/v1/prompt-suggestions/{rejected}", json={"status": "rejected"})
    status, second = await tenant.regenerate()
    assert status == 200
    rows = {row["id"]: row for row in await stored.suggestions(tenant.product["id"])}
    assert all(rows[old]["deleted_at"] is not None for old in pending)
    assert (rows[accepted]["status"], rows[accepted]["deleted_at"]) == ("accepted", None)
    assert (rows[rejected]["status"], rows[rejected]["deleted_at"]) == ("rejected", None)
    # The reviewed prompts are not offered again; the others come back as new pending suggestions.
    assert second["data"]["count"] == len(pending)
    assert sorted(rows[new]["prompt"] for new in second["data"]["ids"]) == sorted(
        rows[old]["prompt"] for old in pending
    )
    live_ids = {row_id for row_id, row in rows.items() if row["deleted_at"] is None}
    assert live_ids == {accepted, rejected, *second["data"]["ids"]}


async def test_a_product_without_topics_answers_zero_suggestions(tenant: Tenant, stored: Stored):
    status, answer = await tenant.regenerate()
    assert status == 200
    assert answer == {"ok": True, "data": {"count": 0, "ids": []}}
    assert await stored.suggestions(tenant.product["id"]) == []


async def test_one_failing_topic_job_changes_nothing_and_answers_an_error_envelope(
    tenant: Tenant, stored: Stored, gateway_with_generator: StartWithGenerator
):
    await tenant.topic("pricing plans")
    security = await tenant.topic("data security")
    await tenant.regenerate()
    before = await stored.suggestions(tenant.product["id"])
    failing = tenant.on(await gateway_with_generator(FailsForTopic("data security")))
    status, answer = await failing.regenerate()
    assert status == 500
    assert answer == {
        "ok": False,
        "code": "INTERNAL_ERROR",
        "message": "generating suggestions failed; the previous suggestions are unchanged",
        "details": {"topicIds": [security["id"]]},
    }
    assert await stored.suggestions(tenant.product["id"]) == before
    assert len(live(before)) == 8


async def test_two_concurrent_regenerations_run_one_after_the_other(
    tenant: Tenant, stored: Stored, gateway_with_generator: StartWithGenerator
):
    await tenant.persona("Data Lead")
    for name in ("pricing plans", "data security", "integrations"):
        await tenant.topic(name)
    gated = Gated()
    caller = tenant.on(await gateway_with_generator(gated))
    both = asyncio.gather(caller.regenerate(), caller.regenerate())
    try:
        async with asyncio.timeout(5):
            while gated.arrived < 3:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)  # ample time for the other one to arrive, were it not held back
        assert gated.arrived == 3  # one regeneration's three jobs: the other waits for its lock
    finally:
        gated.gate.set()
    (status_a, a), (status_b, b) = await both
    assert (status_a, status_b) == (200, 200)
    assert [a["data"]["count"], b["data"]["count"]] == [18, 18]
    # The one that ran second replaced everything the first stored.
    rows = await stored.suggestions(tenant.product["id"])
    live_ids = {row["id"] for row in live(rows)}
    first, last = (a, b) if live_ids == set(b["data"]["ids"]) else (b, a)
    assert live_ids == set(last["data"]["ids"])
    assert {row["id"] for row in rows if row["deleted_at"] is not None} == set(first["data"]["ids"])


async def test_another_organizations_product_is_404_and_untouched(tenant: Tenant, stranger: Tenant, stored: Stored):
    await tenant.topic("pricing plans")
    status, answer = await stranger.call("POST", REGENERATE, json={"productId": tenant.product["id"]})
    assert status == 404
    assert answer == {"ok": False, "code": "NOT_FOUND", "message": "product not found"}
    assert await stored.suggestions(tenant.product["id"]) == []


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({}, {"productId": "Missing data for required field."}),
        ({"productId": 42}, {"productId": "Not a valid string."}),
    ],
)
async def test_a_missing_or_mistyped_product_id_is_422(tenant: Tenant, body: dict, details: dict):
    status, answer = await tenant.call("POST", REGENERATE, json=body)
    assert status == 422
    assert answer["details"] == details


async def test_a_body_that_is_not_json_is_400(tenant: Tenant):
    status, answer = await tenant.call("POST", REGENERATE, data="productId", headers={"Content-Type": "text/plain"})
    assert status == 400
    assert answer["code"] == "BAD_REQUEST"


async def test_regenerating_needs_prompts_write(tenant: Tenant, identity, stored: Stored):
    await tenant.topic("pricing plans")
    reader = await tenant.with_scopes(identity, ALL_SCOPES - {"prompts:write"})
    status, answer = await reader.regenerate()
    assert (status, answer["details"]) == (403, {"requiredScope": "prompts:write"})
    assert await stored.suggestions(tenant.product["id"]) == []
