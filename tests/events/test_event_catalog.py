"""Every event type of the catalog is announced when its change happens, received by a real
receiver, verified with the standardwebhooks package and checked against its declared `data`
shape (tests/events/conftest.py). The domain and route events are in test_app_events.py."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from gateway.identity.auth import key_changes
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import transaction
from services.events.catalog import BY_TYPE
from tests.conftest import Stack
from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.events.test_app_events import DOMAIN_EVENTS, ROUTE_EVENTS, TAKEOVER_EVENTS
from tests.events.test_webhooks import create_page
from tests.factories import AppsProducts, IdentityFactory, SimulationFactory

APP_EVENTS = ["app.created", "app.updated", "app.deleted", "app.restored"]
CONTENT_EVENTS = [
    f"content.document.{intent}" for intent in ("created", "updated", "published", "unpublished", "deleted")
]
PERSONA_EVENTS = ["persona.updated", "prompt_suggestions.regenerated"]
KEY_EVENTS = ["api_key.created", "api_key.rotated", "api_key.revoked"]
RUN_EVENTS = ["simulation.run.recorded"]
# Received, verified and checked in tests/simulations/test_lifecycle.py.
COMPLETED_RUN_EVENTS = ["simulation.run.completed"]


def test_every_type_of_the_catalog_is_received_by_a_test():
    received_here = [*APP_EVENTS, *CONTENT_EVENTS, *PERSONA_EVENTS, *KEY_EVENTS, *RUN_EVENTS]
    received_elsewhere = [*DOMAIN_EVENTS, *TAKEOVER_EVENTS, *ROUTE_EVENTS, *COMPLETED_RUN_EVENTS]
    assert sorted([*received_here, *received_elsewhere]) == sorted(BY_TYPE)


async def received(receiver: Receiver, endpoint: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """The first `count` payloads, verified; and nothing more arrives meanwhile."""
    await receiver.deliveries(count)
    payloads = [receiver.verified(endpoint["secret"], index) for index in range(len(receiver.received))]
    assert len(payloads) == count, [payload["type"] for payload in payloads]
    return payloads


async def test_an_apps_life_is_announced(tenant: Tenant, receivers: list[Receiver], apps_products: AppsProducts):
    await apps_products.until_known(tenant.product)
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, APP_EVENTS)
    status, answer = await tenant.call(
        "POST", "/api/v1/apps", json={"name": "Docs", "slug": f"a-{secrets.token_hex(4)}"}
    )
    assert status == 201, answer
    app = answer["data"]
    await receiver.deliveries(1)
    status, answer = await tenant.call("PATCH", f"/api/v1/apps/{app['id']}", json={"name": "Handbook"})
    assert status == 200, answer
    await receiver.deliveries(2)
    status, answer = await tenant.call("DELETE", f"/api/v1/apps/{app['id']}")
    assert status == 200, answer
    await receiver.deliveries(3)
    status, answer = await tenant.call("POST", f"/api/v1/apps/{app['id']}/restore")
    assert status == 200, answer
    payloads = await received(receiver, endpoint, 4)
    assert [payload["type"] for payload in payloads] == APP_EVENTS
    assert {payload["data"]["id"] for payload in payloads} == {app["id"]}
    assert payloads[1]["data"]["name"] == "Handbook"
    assert payloads[2]["data"]["deletedAt"] is not None and payloads[3]["data"]["deletedAt"] is None


async def test_a_documents_life_is_announced(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, CONTENT_EVENTS)
    page_id = await create_page(tenant, f"life-{secrets.token_hex(3)}")
    await receiver.deliveries(1)
    product_id = tenant.product["id"]
    for count, change in enumerate(({"title": "Renamed"}, {"status": "published"}, {"status": "draft"}), start=2):
        status, answer = await tenant.call(
            "PATCH", "/api/v1/site/pages", json={"productId": product_id, "pages": [{"id": page_id, **change}]}
        )
        assert status == 200, answer
        await receiver.deliveries(count)
    status, answer = await tenant.call(
        "DELETE", "/api/v1/site/pages", json={"productId": product_id, "pageIds": [page_id]}
    )
    assert status == 200, answer
    payloads = await received(receiver, endpoint, 5)
    assert [payload["type"] for payload in payloads] == CONTENT_EVENTS
    assert {payload["data"]["id"] for payload in payloads} == {page_id}
    assert payloads[1]["data"]["title"] == "Renamed"
    assert payloads[4]["data"]["deletedAt"] is not None


async def test_personas_and_regenerated_suggestions_are_announced(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, PERSONA_EVENTS)
    product_id = tenant.product["id"]
    status, answer = await tenant.call(
        "POST", f"/api/v1/products/{product_id}/personas", json={"name": "Data Lead", "description": "Buys tools."}
    )
    assert status == 201, answer
    persona = answer["data"]
    await receiver.deliveries(1)
    status, answer = await tenant.call("POST", f"/api/v1/products/{product_id}/topics", json={"name": "pricing"})
    assert status == 201, answer
    status, regenerated = await tenant.call(
        "POST", "/api/v1/prompt-suggestions/regenerate", json={"productId": product_id}
    )
    assert status == 200, regenerated
    updated, suggestions = await received(receiver, endpoint, 2)
    assert (updated["type"], updated["data"]["id"]) == ("persona.updated", persona["id"])
    assert suggestions["type"] == "prompt_suggestions.regenerated"
    assert suggestions["data"] == {"productId": product_id, **regenerated["data"]}


async def test_a_recorded_run_is_announced(tenant: Tenant, receivers: list[Receiver], simulations: SimulationFactory):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, RUN_EVENTS)
    environment = await simulations.environment(tenant.org)
    run = await simulations.run(tenant.org, environment)
    (payload,) = await received(receiver, endpoint, 1)
    assert (payload["type"], payload["data"]["id"]) == ("simulation.run.recorded", run["id"])


async def test_api_key_changes_are_announced(
    stack: Stack, tenant: Tenant, identity: IdentityFactory, receivers: list[Receiver]
):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, KEY_EVENTS)
    now = datetime.now(UTC)
    async with transaction(identity.pool) as cur:
        _, key = await key_changes.create_key(
            cur, tenant.org.id, key_changes.OPERATOR, "deploys", ALL_SCOPES, now + timedelta(days=30)
        )
        rotation = await key_changes.rotate_key(
            cur,
            tenant.org.id,
            str(key["id"]),
            key_changes.OPERATOR,
            "deploys 2",
            ALL_SCOPES,
            None,
            timedelta(hours=1),
            now,
        )
        await key_changes.revoke_key(cur, tenant.org.id, str(rotation.new["id"]), key_changes.OPERATOR, now)
    payloads = await received(receiver, endpoint, 4)
    # In order per key; the two keys' events may interleave.
    by_key: dict[str, list[str]] = {}
    for payload in payloads:
        by_key.setdefault(payload["data"]["id"], []).append(payload["type"])
    successor_id = str(rotation.new["id"])
    assert by_key == {
        str(key["id"]): ["api_key.created", "api_key.rotated"],
        successor_id: ["api_key.created", "api_key.revoked"],
    }
    data = {(payload["type"], payload["data"]["id"]): payload["data"] for payload in payloads}
    created, rotated = data["api_key.created", str(key["id"])], data["api_key.rotated", str(key["id"])]
    assert (created["name"], created["actor"], created["revokedAt"]) == ("deploys", key_changes.OPERATOR.label, None)
    assert rotated["details"]["replacedBy"] == rotation.new["prefix"] and rotated["revokedAt"] is not None
    assert data["api_key.revoked", successor_id]["revokedAt"] is not None
