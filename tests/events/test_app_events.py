"""What an app's domains and routes announce to webhooks, received by a real receiver and verified
with the standardwebhooks package: each event named for what happened, when it happened."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from libs.contract.parts import APPS
from tests.apps.fake_dns import FakeDns, reclaim_environ, start_fake_dns
from tests.conftest import Client, Stack, build_app
from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.events.test_webhooks import create_page
from tests.factories import AppsProducts, IdentityFactory, eventually

DOMAIN_EVENTS = ["app.domain.created", "app.domain.verified", "app.domain.deleted"]
TAKEOVER_EVENTS = ["app.domain.taken_over"]
# A verified domain whose record is gone may be taken over this long after a recheck finds it missing.
GRACE_SECONDS = 1
ROUTE_EVENTS = ["app.route.created", "app.route.updated", "app.route.deleted"]


@pytest.fixture
async def dns() -> AsyncIterator[FakeDns]:
    server = await start_fake_dns()
    yield server
    server.close()


@pytest.fixture
async def apps_gateway(stack: Stack, dns: FakeDns, aiohttp_server: Any) -> AsyncIterator[Client]:
    """A gateway whose apps service looks TXT records up in `dns`, verified domains' again every second;
    the stack's events part delivers."""
    server = await aiohttp_server(build_app(APPS, stack.part_environ(APPS, **reclaim_environ(dns, GRACE_SECONDS))))
    client = await stack.start_gateway({"APPS_URL": f"http://127.0.0.1:{server.port}"})
    yield client
    await client.close()


@pytest.fixture
async def owner(tenant: Tenant, apps_gateway: Client, apps_products: AppsProducts) -> Tenant:
    await apps_products.until_known(tenant.product)
    return Tenant(tenant.org, tenant.key, apps_gateway, tenant.product)


async def new_app(owner: Tenant) -> dict[str, Any]:
    status, answer = await owner.call(
        "POST", "/api/v1/apps", json={"name": "Docs", "slug": f"d-{secrets.token_hex(4)}"}
    )
    assert status == 201, answer
    app: dict[str, Any] = answer["data"]
    status, answer = await owner.call(
        "POST", f"/api/v1/apps/{app['id']}/resources", json={"resourceId": owner.product["id"]}
    )
    assert status == 201, answer
    return app


def payloads(receiver: Receiver, secret: str) -> list[dict[str, Any]]:
    return [receiver.verified(secret, index) for index in range(len(receiver.received))]


async def test_deleting_a_route_announces_it_deleted_at_once(owner: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await owner.endpoint(receiver.url, ROUTE_EVENTS)
    app = await new_app(owner)
    page_id = await create_page(owner, f"guide-{secrets.token_hex(3)}")
    routes = f"/api/v1/apps/{app['id']}/routes"
    body = {"routes": [{"path": "/guide", "targetId": page_id, "targetType": "product_document"}]}
    status, answer = await owner.call("POST", f"{routes}/batch", json=body)
    assert status == 200, answer
    route_id = answer["data"]["routes"][0]["id"]
    await receiver.deliveries(1)
    status, answer = await owner.call("PATCH", f"{routes}/{route_id}", json={"path": "/guide/start"})
    assert status == 200, answer
    await receiver.deliveries(2)
    status, deleted = await owner.call("DELETE", f"{routes}/{route_id}")
    assert status == 200, deleted
    await receiver.deliveries(3)
    created, updated, gone = payloads(receiver, endpoint["secret"])
    assert [created["type"], updated["type"], gone["type"]] == ROUTE_EVENTS
    assert (created["data"]["deletedAt"], updated["data"]["deletedAt"]) == (None, None)
    assert updated["data"]["path"] == "/guide/start"
    assert gone["data"]["id"] == route_id
    assert gone["data"]["deletedAt"] is not None
    assert gone["data"]["deletedAt"].startswith(deleted["data"]["deletedAt"][:19])
    assert {key: gone["data"][key] for key in ("appId", "path", "targetId")} == {
        "appId": app["id"],
        "path": "/guide/start",
        "targetId": page_id,
    }


async def test_a_domain_is_announced_verified_only_once_its_record_is_found(
    owner: Tenant, receivers: list[Receiver], dns: FakeDns
):
    receiver = await start_receiver(receivers)
    endpoint = await owner.endpoint(receiver.url, DOMAIN_EVENTS)
    app = await new_app(owner)
    domains = f"/api/v1/apps/{app['id']}/domains"
    status, answer = await owner.call("POST", domains, json={"domain": f"e-{secrets.token_hex(4)}.example.com"})
    assert status == 201, answer
    domain = answer["data"]
    await receiver.deliveries(1)
    # No record yet: a failed check announces nothing.
    status, answer = await owner.call("POST", f"{domains}/{domain['id']}/verify", json={})
    assert (status, answer["data"]["verified"]) == (200, False)
    record = domain["verification"][0]
    dns.publish(record["name"], record["value"])
    status, answer = await owner.call("POST", f"{domains}/{domain['id']}/verify", json={})
    assert (status, answer["data"]["verified"]) == (200, True)
    verified_domain = answer["data"]
    await receiver.deliveries(2)
    status, answer = await owner.call("DELETE", f"{domains}/{domain['id']}")
    assert status == 200, answer
    await receiver.deliveries(3)
    created, verified, deleted = payloads(receiver, endpoint["secret"])
    assert [created["type"], verified["type"], deleted["type"]] == DOMAIN_EVENTS
    assert created["data"]["id"] == domain["id"]
    assert (created["data"]["verified"], created["data"]["verifiedAt"]) == (False, None)
    assert verified["data"]["verified"] is True
    assert verified["data"]["verifiedAt"] == verified_domain["verifiedAt"]
    assert deleted["data"]["deletedAt"] is not None


async def test_a_holder_is_told_when_another_organization_takes_its_domain_over(
    owner: Tenant, receivers: list[Receiver], dns: FakeDns, identity: IdentityFactory, apps_products: AppsProducts
):
    receiver = await start_receiver(receivers)
    endpoint = await owner.endpoint(receiver.url, TAKEOVER_EVENTS)
    app = await new_app(owner)
    domains = f"/api/v1/apps/{app['id']}/domains"
    status, answer = await owner.call("POST", domains, json={"domain": f"t-{secrets.token_hex(4)}.example.com"})
    assert status == 201, answer
    held = answer["data"]
    record = held["verification"][0]
    dns.publish(record["name"], record["value"])
    status, answer = await owner.call("POST", f"{domains}/{held['id']}/verify", json={})
    assert (status, answer["data"]["verified"]) == (200, True)
    dns.records.pop(record["name"])  # the hostname's DNS changes hands
    newcomer = await _newcomer(owner, identity, apps_products)
    their_app = await new_app(newcomer)
    theirs = f"/api/v1/apps/{their_app['id']}/domains"
    offered: list[dict[str, Any]] = []

    async def challenged() -> bool:
        status, answer = await newcomer.call("POST", theirs, json={"domain": held["domain"]})
        assert status == 409, answer
        offered.extend(answer.get("details", {}).get("verification", []))
        return bool(offered)

    await eventually(challenged, within=20)
    dns.publish(record["name"], offered[0]["value"])
    status, answer = await newcomer.call("POST", theirs, json={"domain": held["domain"]})
    assert status == 201, answer
    await receiver.deliveries(1)
    (taken,) = payloads(receiver, endpoint["secret"])
    assert (taken["type"], taken["organizationId"]) == ("app.domain.taken_over", owner.org.id)
    assert (taken["data"]["id"], taken["data"]["releaseReason"]) == (held["id"], "claimed")
    assert taken["data"]["releasedAt"] is not None and taken["data"]["recordMissingSince"] is not None
    # The newcomer's organization hears nothing of the holder's.
    assert their_app["id"] not in str(taken)


async def _newcomer(owner: Tenant, identity: IdentityFactory, apps_products: AppsProducts) -> Tenant:
    org = await identity.organization()
    product = await identity.product(org)
    await apps_products.until_known(product)
    return Tenant(org, await identity.api_key(org), owner.gateway, product)
