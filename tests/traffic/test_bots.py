"""GET /api/v1/ai-traffic/bots: the committed catalog, for any credential."""

from __future__ import annotations

from tests.factories import IdentityFactory


async def test_any_credential_reads_the_catalog_with_its_source(gateway, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org, frozenset())
    async with gateway.get("/api/v1/ai-traffic/bots", headers={"x-api-key": key}) as response:
        body = await response.json()
    assert response.status == 200
    data = body["data"]
    assert data["source"]["userAgents"]["package"] == "crawler-user-agents"
    gptbot = next(item for item in data["items"] if item["id"] == "gptbot")
    assert {k: gptbot[k] for k in ("operator", "category", "robotsToken", "patterns")} == {
        "operator": "OpenAI",
        "category": "training",
        "robotsToken": "GPTBot",
        "patterns": ["GPTBot"],
    }
    assert {item["category"] for item in data["items"]} <= {
        "training",
        "search",
        "user_fetch",
        "agent",
        "dataset",
        "other",
    }
    assert any(r["platform"] == "chatgpt" for r in data["referrers"])


async def test_the_catalog_needs_a_credential(gateway):
    async with gateway.get("/api/v1/ai-traffic/bots") as response:
        assert response.status == 401
