"""Each part's changes reach webhooks: personas, prompt suggestions, simulation runs."""

from __future__ import annotations

import uuid

from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.factories import Org, SimulationFactory


async def test_persona_changes_are_delivered_as_the_api_shows_them(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["persona.updated"])
    path = f"/api/v1/products/{tenant.product['id']}/personas"
    status, created = await tenant.call("POST", path, json={"name": "Editor", "description": "Edits."})
    assert status == 201
    status, updated = await tenant.call("PUT", f"/api/v1/personas/{created['data']['id']}", json={"name": "Chief"})
    assert status == 200
    await receiver.deliveries(2)
    payloads = [receiver.verified(endpoint["secret"], index) for index in range(2)]
    assert [payload["data"]["name"] for payload in payloads] == ["Editor", "Chief"]  # in order per resource
    assert payloads[1]["data"] == updated["data"]
    assert {payload["type"] for payload in payloads} == {"persona.updated"}


async def test_regenerated_suggestions_are_delivered(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["prompt_suggestions.regenerated"])
    status, answer = await tenant.call(
        "POST", "/api/v1/prompt-suggestions/regenerate", json={"productId": tenant.product["id"]}
    )
    assert status == 200, answer
    await receiver.deliveries(1)
    payload = receiver.verified(endpoint["secret"])
    assert payload["type"] == "prompt_suggestions.regenerated"
    assert payload["data"] == {"productId": tenant.product["id"], **answer["data"]}


async def test_a_recorded_run_is_delivered(tenant: Tenant, simulations: SimulationFactory, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["simulation.run.recorded"])
    org = Org(tenant.org.id, tenant.org.slug, tenant.org.name)
    environment = await simulations.environment(org)
    run = await simulations.run(org, environment)
    await receiver.deliveries(1)
    payload = receiver.verified(endpoint["secret"])
    assert payload["type"] == "simulation.run.recorded"
    assert payload["data"]["id"] == run["id"]
    status, shown = await tenant.call("GET", f"/api/v1/agent-simulation/runs/{run['id']}")
    assert status == 200 and payload["data"] == shown["data"]


async def test_app_and_domain_changes_are_delivered(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["app.created", "app.updated", "app.domain.created"])
    status, created = await tenant.call("POST", "/api/v1/apps", json={"name": "Docs"})
    assert status == 201, created
    app_id = created["data"]["id"]
    status, updated = await tenant.call("PATCH", f"/api/v1/apps/{app_id}", json={"name": "Docs site"})
    assert status == 200, updated
    hostname = f"docs-{uuid.uuid4().hex[:8]}.example.com"  # a hostname is one organization's
    status, domain = await tenant.call("POST", f"/api/v1/apps/{app_id}/domains", json={"domain": hostname})
    assert status == 201, domain
    await receiver.deliveries(3)
    payloads = [receiver.verified(endpoint["secret"], index) for index in range(len(receiver.received))]
    app_events = [
        (p["type"], p["data"]["name"]) for p in payloads if p["type"].startswith("app.") and "name" in p["data"]
    ]
    assert app_events == [("app.created", "Docs"), ("app.updated", "Docs site")]  # in order per resource
    [domain_event] = [p for p in payloads if p["type"] == "app.domain.created"]
    assert domain_event["data"]["domain"] == hostname
    assert domain_event["data"]["appId"] == app_id
