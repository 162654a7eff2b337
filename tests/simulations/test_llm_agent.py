"""The `llm` agent through the gateway: it reads the App as the deterministic agent does and asks an
engine of the catalog, through its vendor's SDK, to answer from the pages read; the local server
speaks each vendor's wire format. Without the engine's key it is refused, never imitated."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from aiohttp.test_utils import TestServer

from libs.contract.parts import SIMULATIONS
from tests.analytics.fake_vendors import Script, vendor_environ, vendors_app
from tests.conftest import Client, Stack, build_app
from tests.factories import ContentFactory, DomainFactory
from tests.integration.support import call
from tests.simulations import site as s

GOAL = "How much does the Team plan cost?"


class PageReader(Script):
    """Answers the price question from the pages given, as a model told to answer from them would."""

    def answer(self, prompt: str) -> tuple[str, list[str]]:
        if f"Question: {GOAL}" in prompt and "$49 per month" in prompt and "## Page: /pricing" in prompt:
            return "$49 per month\nSource: /pricing", []
        return "Not found", []


@dataclass
class Keyed:
    script: Script
    gateway: Client


@pytest.fixture
async def keyed(stack: Stack) -> AsyncIterator[Keyed]:
    """A gateway whose simulations part (API and worker) holds every engine's key, for the local server."""
    script = PageReader()
    vendor_server = TestServer(vendors_app(script))
    await vendor_server.start_server()
    base = str(vendor_server.make_url("")).rstrip("/")
    simulations = TestServer(build_app(SIMULATIONS, stack.part_environ(SIMULATIONS, **vendor_environ(base))))
    await simulations.start_server()
    gateway = await stack.start_gateway({"SIMULATIONS_URL": str(simulations.make_url("")).rstrip("/")})
    yield Keyed(script, gateway)
    await gateway.close()
    await simulations.close()
    await vendor_server.close()


# (engine, tokens the local server reports, the cost: priced from OpenAI's tokens, Perplexity's own, none for Claude)
ENGINES = [("openai-search", 60, 0.000072), ("perplexity-sonar", 40, 0.005), ("anthropic-web", 80, 0.0)]


@pytest.mark.parametrize(("engine", "tokens", "cost"), ENGINES)
async def test_an_llm_agent_answers_from_the_pages_it_read_through_its_engine(
    keyed: Keyed, tenant, content: ContentFactory, domains: DomainFactory, engine: str, tokens: int, cost: float
):
    org, product, headers = tenant
    app, _ = await s.product_site(keyed.gateway, headers, content, domains, org, product)
    task = await s.task(
        keyed.gateway,
        headers,
        app.app["id"],
        goal=GOAL,
        criteria=[
            {"type": "exact_match", "value": "$49 per month"},
            {"type": "page_reached", "value": "/pricing"},
        ],
    )
    environment = await s.environment(keyed.gateway, headers, task["id"], kind="llm", engine=engine)
    assert environment["agentConfig"]["engine"] == engine

    [queued] = await s.run(keyed.gateway, headers, environment["id"])
    run = await s.ended(keyed.gateway, headers, queued["id"])

    assert run["status"] == "completed", run["metadata"]
    assert (run["passed"], run["overallScore"]) == (True, 1.0)
    assert (run["metadata"]["answer"], run["metadata"]["answerPage"]) == ("$49 per month", "/pricing")
    assert run["tokensUsed"] == tokens and run["costUsd"] == pytest.approx(cost)
    trajectory = await s.steps(keyed.gateway, headers, run["id"])
    [answered] = [step for step in trajectory if step["kind"] == "answer"]
    assert answered["ok"] is True and answered["url"] == "/pricing" and answered["tokens"] == tokens
    assert answered["detail"]["engine"] == engine and answered["detail"]["answer"] == "$49 per month"
    assert [step["kind"] for step in trajectory[4:7]] == ["fetch", "rank", "read"]

    # The engine was asked to answer from the pages, not to search the web.
    vendor, body = keyed.script.bodies[-1]
    assert vendor == engine.split("-")[0]
    asked = body.get("input") or body["messages"][0]["content"]
    assert f"Question: {GOAL}" in asked and "The Team plan costs $49 per month" in asked
    assert "tools" not in body
    assert body.get("disable_search") is (True if vendor == "perplexity" else None)


async def test_an_engine_that_finds_no_answer_fails_the_run_saying_so(
    keyed: Keyed, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, _ = await s.product_site(keyed.gateway, headers, content, domains, org, product)
    task = await s.task(
        keyed.gateway,
        headers,
        app.app["id"],
        goal="Is there a free trial?",
        criteria=[{"type": "must_include", "value": "trial"}],
    )
    environment = await s.environment(keyed.gateway, headers, task["id"], kind="llm", engine="openai-search")
    [queued] = await s.run(keyed.gateway, headers, environment["id"])
    run = await s.ended(keyed.gateway, headers, queued["id"])
    assert (run["status"], run["passed"], run["overallScore"]) == ("completed", False, 0.0)
    assert run["metadata"]["criteria"][0]["holds"] is False
    [answered] = [step for step in await s.steps(keyed.gateway, headers, run["id"]) if step["kind"] == "answer"]
    assert answered["ok"] is False and answered["detail"]["why"] == "the engine found no answer in the pages read"


async def test_without_the_engine_key_an_llm_agent_is_refused_and_nothing_is_queued(
    keyed: Keyed, gateway: Client, tenant
):
    _, _, headers = tenant
    task = await s.task(gateway, headers, "00000000-0000-4000-8000-000000000000")
    body = {"name": "LLM", "taskId": task["id"], "agentConfig": {"kind": "llm", "engine": "openai-search"}}
    # The shared stack's simulations part holds no key: the environment is refused, saying which to set.
    status, answer = await call(gateway, "POST", f"{s.BASE}/environments", headers, json=body)
    assert (status, answer["code"]) == (422, "VALIDATION_FAILED")
    assert "OPENAI_API_KEY" in answer["message"] and "OPENAI_API_KEY" in answer["details"]["agentConfig.engine"]
    status, answer = await call(
        gateway, "POST", f"{s.BASE}/environments", headers, json={**body, "agentConfig": {"kind": "llm"}}
    )
    assert status == 422 and "names its engine" in answer["message"]

    # Saved where the key is set, then asked to run where it is not: refused, and no run is queued.
    environment = await s.environment(keyed.gateway, headers, task["id"], kind="llm", engine="openai-search")
    status, answer = await call(gateway, "POST", f"{s.BASE}/runs", headers, json={"environmentId": environment["id"]})
    assert (status, answer["code"]) == (422, "VALIDATION_FAILED") and "OPENAI_API_KEY" in answer["message"]
    status, runs = await call(gateway, "GET", f"{s.BASE}/runs", headers, params={"environmentId": environment["id"]})
    assert runs["data"] == {"runs": [], "total": 0}
