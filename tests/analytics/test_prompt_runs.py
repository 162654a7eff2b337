"""Prompt runs through the gateway: the engines asked through their vendors' SDKs against a local
server speaking each vendor's wire format, answers stored and analysed, progress, tokens and cost,
retries, failures, refusals of engines without a key, cancellation."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.analytics.conftest import Collector, Vendors, branded
from tests.factories import IdentityFactory, eventually, unique
from tests.personas.conftest import Tenant

PROMPT = "Best analytics tool for a startup?"
ANSWER = "1. Acme Cloud is excellent.\n2. Globex is older."


async def tracked(tenant: Tenant, text: str = PROMPT, **fields: Any) -> dict[str, Any]:
    status, answer = await tenant.call(
        "POST", f"/api/v1/products/{tenant.product['id']}/prompts", json={"text": text, **fields}
    )
    assert status == 201, answer
    return answer["data"]


async def finished(tenant: Tenant, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = {}

    async def ended() -> bool:
        status, answer = await tenant.call("GET", f"/api/v1/prompt-runs/{run_id}")
        assert status == 200, answer
        run.update(answer["data"])
        return run["status"] not in ("queued", "running")

    await eventually(ended, within=20)
    return run


async def test_a_run_asks_every_engine_and_its_answers_are_analysed(vendors: Vendors, identity: IdentityFactory):
    tenant = await branded(vendors.gateway, identity)
    vendors.script.text[PROMPT] = ANSWER
    vendors.script.cited[PROMPT] = ["https://acme.com/pricing", "https://globex.com/compare"]
    prompt = await tracked(tenant)
    status, created = await tenant.call(
        "POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"], "promptIds": [prompt["id"]]}
    )
    assert status == 202
    assert (created["data"]["status"], created["data"]["progress"]) == ("queued", {"total": 3, "done": 0, "failed": 0})
    assert created["data"]["engines"] == ["anthropic-web", "openai-search", "perplexity-sonar"]
    run = await finished(tenant, created["data"]["id"])
    assert (run["status"], run["progress"], run["trigger"]) == (
        "completed",
        {"total": 3, "done": 3, "failed": 0},
        "manual",
    )
    assert run["usage"] == {"inputTokens": 60, "outputTokens": 120, "costUsd": 0.005072}
    answers = Collector(tenant)
    _, listing = await tenant.call("GET", "/api/v1/answers", params={"runId": run["id"]})
    items = listing["data"]["items"]
    assert sorted(item["engine"] for item in items) == ["anthropic-web", "openai-search", "perplexity-sonar"]
    for item in items:
        analysed = await answers.analysed(item["id"])
        assert (analysed["source"], analysed["runId"], analysed["text"]) == ("run", run["id"], ANSWER)
        assert analysed["prompt"] == {"id": prompt["id"], "version": 1, "text": PROMPT, "topicId": None}
        assert analysed["model"] in ("gpt-4.1-mini", "sonar", "claude-sonnet-4-6")
        brands = [(b["name"], b["position"], b["listRank"]) for b in analysed["analysis"]["brands"]]
        assert brands == [("Acme", 1, 1), ("Globex", 2, 2)]
        citations = [(c["url"], c["cited"], c["classification"]) for c in analysed["analysis"]["citations"]]
        assert citations == [
            ("https://acme.com/pricing", True, "owned"),
            ("https://globex.com/compare", True, "competitor"),
            ("https://retrieved.example.org/r", False, "third_party"),
        ]
    sent = {vendor: body for vendor, body in vendors.script.bodies}
    assert sent["openai"]["tools"] == [{"type": "web_search"}]
    assert sent["anthropic"]["tools"][0]["type"] == "web_search_20250305"
    assert sent["perplexity"]["model"] == "sonar"


async def test_the_sdks_retry_rate_limits_and_server_errors(vendors: Vendors, identity: IdentityFactory):
    tenant = await branded(vendors.gateway, identity)
    text = unique("Which tool")
    prompt = await tracked(tenant, text, engines=["openai-search"])
    vendors.script.failures["openai", text] = [429, 500]
    _, created = await tenant.call("POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"]})
    run = await finished(tenant, created["data"]["id"])
    assert (run["status"], run["progress"]["done"], run["promptIds"]) == ("completed", 1, [prompt["id"]])
    # Other organizations' prompts may be due too: only this prompt's calls are counted.
    assert [body["input"] for vendor, body in vendors.script.bodies if body.get("input") == text] == [text] * 3


async def test_an_engine_failing_past_its_retries_leaves_a_partial_run(vendors: Vendors, identity: IdentityFactory):
    tenant = await branded(vendors.gateway, identity)
    text = unique("Which tool")
    await tracked(tenant, text, engines=["anthropic-web", "perplexity-sonar"])
    vendors.script.failures["anthropic", text] = [500, 500, 500]
    _, created = await tenant.call("POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"]})
    run = await finished(tenant, created["data"]["id"])
    assert (run["status"], run["progress"]) == ("partial", {"total": 2, "done": 1, "failed": 1})
    _, listing = await tenant.call("GET", "/api/v1/answers", params={"runId": run["id"]})
    assert [item["engine"] for item in listing["data"]["items"]] == ["perplexity-sonar"]


async def test_samples_ask_each_engine_several_times(vendors: Vendors, identity: IdentityFactory):
    tenant = await branded(vendors.gateway, identity)
    prompt = await tracked(tenant)
    body = {
        "productId": tenant.product["id"],
        "promptIds": [prompt["id"]],
        "engines": ["perplexity-sonar"],
        "samples": 3,
    }
    _, created = await tenant.call("POST", "/api/v1/prompt-runs", json=body)
    run = await finished(tenant, created["data"]["id"])
    assert (run["status"], run["progress"]["done"], run["samples"]) == ("completed", 3, 3)


async def test_engines_without_a_key_are_refused(collector: Collector):
    tenant = collector.tenant
    prompt = await tracked(tenant)
    status, answer = await tenant.call(
        "POST",
        "/api/v1/prompt-runs",
        json={"productId": tenant.product["id"], "promptIds": [prompt["id"]], "engines": ["openai-search"]},
    )
    assert (status, answer["details"]) == (
        422,
        {"engines.0": "Not configured in this deployment: its vendor's key is not set."},
    )
    status, answer = await tenant.call("POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"]})
    assert (status, answer["details"]) == (422, {"engines": "No engine is configured in this deployment."})
    _, runs = await tenant.call("GET", "/api/v1/prompt-runs", params={"productId": tenant.product["id"]})
    assert runs["data"] == {"items": [], "nextCursor": None}


async def test_a_run_names_only_prompts_of_its_product(vendors: Vendors, identity: IdentityFactory):
    tenant, stranger = await branded(vendors.gateway, identity), await branded(vendors.gateway, identity)
    theirs = await tracked(stranger)
    status, answer = await tenant.call(
        "POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"], "promptIds": [theirs["id"]]}
    )
    assert (status, answer["details"]) == (422, {"promptIds.0": "No prompt of this product that is not archived."})
    status, answer = await tenant.call("POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"]})
    assert (status, answer["details"]) == (
        422,
        {"promptIds": "The product has no active prompt: name the prompts to run."},
    )
    status, _ = await stranger.call("POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"]})
    assert status == 404


async def test_a_run_is_cancelled_once_and_not_seen_by_others(vendors: Vendors, identity: IdentityFactory):
    tenant, stranger = await branded(vendors.gateway, identity), await branded(vendors.gateway, identity)
    text = unique("Slow question")
    gate = vendors.script.held[text] = asyncio.Event()  # the run cannot end before it is cancelled
    await tracked(tenant, text, engines=["perplexity-sonar"], samples=5)
    _, created = await tenant.call("POST", "/api/v1/prompt-runs", json={"productId": tenant.product["id"]})
    run_id = created["data"]["id"]
    status, _ = await stranger.call("POST", f"/api/v1/prompt-runs/{run_id}/cancel")
    assert status == 404
    status, cancelled = await tenant.call("POST", f"/api/v1/prompt-runs/{run_id}/cancel")
    assert (status, cancelled["data"]["status"]) == (200, "cancelled")
    assert cancelled["data"]["finishedAt"] is not None
    status, again = await tenant.call("POST", f"/api/v1/prompt-runs/{run_id}/cancel")
    assert (status, again["message"]) == (409, "the run has ended: it is cancelled")
    gate.set()
    run = await finished(tenant, run_id)
    assert run["status"] == "cancelled" and run["progress"]["done"] < 5
    status, _ = await stranger.call("GET", f"/api/v1/prompt-runs/{run_id}")
    assert status == 404
    _, listing = await tenant.call("GET", "/api/v1/prompt-runs", params={"status": "cancelled"})
    assert [item["id"] for item in listing["data"]["items"]] == [run_id]
