"""The simulations page over HTTP: who sees the forms, and what the environment form refuses."""

from __future__ import annotations

import uuid

from tests.conftest import Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import api, page, signed_in, submit


async def test_a_viewer_reads_the_page_without_forms_and_an_owner_gets_them(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    viewer = await signed_in(stack.gateway, *await identity.account((org, "viewer")))
    html = await page(viewer, f"/{org.slug}/simulations")
    assert "Agent simulations" in html and "No tasks yet" in html and "Save task" not in html
    owner = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    assert "Save task" in await page(owner, f"/{org.slug}/simulations")


async def test_the_environment_form_refuses_an_engine_without_its_key_and_saves_the_reader(
    stack: Stack, identity: IdentityFactory
):
    org = await identity.organization()
    key = await identity.api_key(org)
    task = await api(
        stack.gateway,
        key,
        "POST",
        "/api/v1/agent-simulation/tasks",
        json={
            "name": "Price",
            "category": "pricing",
            "goal": "How much is Team?",
            "appId": str(uuid.uuid4()),
            "criteria": [{"type": "must_include", "value": "$49"}],
        },
    )
    owner = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    path = f"/{org.slug}/simulations"
    form = {"name": "Engine", "taskId": task["id"], "agent": "llm:openai-search", "entryPoint": "llms_txt"}

    refused = await submit(owner, path, form, action=f"{path}/environments")
    html = await refused.text()
    assert refused.status == 422 and "OPENAI_API_KEY" in html and 'aria-invalid="true"' in html
    assert (await api(stack.gateway, key, "GET", "/api/v1/agent-simulation/environments"))["items"] == []

    saved = await submit(
        owner, path, {**form, "name": "Reader", "agent": "deterministic"}, action=f"{path}/environments"
    )
    assert saved.status == 303
    [environment] = (await api(stack.gateway, key, "GET", "/api/v1/agent-simulation/environments"))["items"]
    assert (environment["name"], environment["agentConfig"]["kind"]) == ("Reader", "deterministic")
    assert "engine" not in environment["agentConfig"]
