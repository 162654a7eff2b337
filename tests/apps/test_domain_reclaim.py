"""A verified hostname whose DNS changed hands: its record is looked up again, and once it has been
missing for the grace period another organization's proof takes the hostname over."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from libs.contract.parts import APPS
from tests.apps.fake_dns import FakeDns, reclaim_environ
from tests.apps.support import Client, FakeContent, Tenant, base_url
from tests.apps.test_domain_verification import claim, domains_of, listed, token_of, verify_path
from tests.conftest import Stack, build_app
from tests.factories import eventually

GRACE_SECONDS = 3


@pytest.fixture
async def api(stack: Stack, content: FakeContent, dns: FakeDns, aiohttp_server: Any) -> AsyncIterator[Client]:
    """The tests' gateway, its apps service re-checking verified domains every second."""
    environ = stack.part_environ(APPS, CONTENT_URL=base_url(content.server), **reclaim_environ(dns, GRACE_SECONDS))
    apps = build_app(APPS, environ)
    server = await aiohttp_server(apps)
    client = await stack.start_gateway({"APPS_URL": base_url(server)})
    yield client
    await client.close()


async def verified(tenant: Tenant, dns: FakeDns) -> dict[str, Any]:
    """A new domain of the tenant's, its record published and found."""
    domain = await claim(tenant)
    dns.publish(domain["verification"][0]["name"], token_of(domain))
    status, body = await tenant.post(verify_path(domain), {})
    assert (status, body["data"]["verified"]) == (200, True), body
    found: dict[str, Any] = body["data"]
    return found


async def until_missing(tenant: Tenant, domain: dict[str, Any]) -> dict[str, Any]:
    """The domain once a recheck has found its record missing."""

    async def missing() -> bool:
        return (await listed(tenant, domain))["recordMissingSince"] is not None

    await eventually(missing, within=20)
    return await listed(tenant, domain)


async def until_challenged(tenant: Tenant, app: dict[str, Any], hostname: str) -> dict[str, Any]:
    """The newcomer's challenge, once the holder's record has been missing for the grace period."""
    answers: list[dict[str, Any]] = []

    async def offered() -> bool:
        status, body = await tenant.post(domains_of(app), {"domain": hostname})
        assert (status, body["code"]) == (409, "CONFLICT"), body
        answers.append(body)
        return "details" in body

    await eventually(offered, within=GRACE_SECONDS + 10)
    details: dict[str, Any] = answers[-1]["details"]
    return details


async def test_a_present_record_is_rechecked_and_the_domain_never_taken(
    tenant: Tenant, other_tenant: Tenant, dns: FakeDns
):
    held = await verified(other_tenant, dns)

    async def rechecked() -> bool:
        return (await listed(other_tenant, held))["recordCheckedAt"] is not None

    await eventually(rechecked, within=20)
    assert (await listed(other_tenant, held))["recordMissingSince"] is None
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert "details" not in body


async def test_a_missing_record_within_the_grace_period_keeps_the_domain(
    tenant: Tenant, other_tenant: Tenant, dns: FakeDns
):
    held = await verified(other_tenant, dns)
    dns.records.pop(held["verification"][0]["name"])
    gone = await until_missing(other_tenant, held)
    assert gone["verified"] is True and gone["releasedAt"] is None
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert "details" not in body


async def test_a_record_missing_past_the_grace_period_lets_a_proof_take_the_domain_over(
    tenant: Tenant, other_tenant: Tenant, dns: FakeDns
):
    held = await verified(other_tenant, dns)
    name = held["verification"][0]["name"]
    dns.records.pop(name)
    await until_missing(other_tenant, held)
    app = await tenant.create_app()
    (record,) = (await until_challenged(tenant, app, held["domain"]))["verification"]
    assert record["value"] != token_of(held)
    dns.publish(name, record["value"])
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert status == 201, body
    mine = body["data"]
    assert (mine["appId"], mine["verified"], mine["verification"]) == (app["id"], True, [record])
    lost = await listed(other_tenant, held)
    assert lost["releaseReason"] == "claimed" and lost["releasedAt"] is not None
    # The hostname is no longer the holder's: it cannot prove it again, nor add it back over the newcomer.
    status, body = await other_tenant.post(verify_path(held), {})
    assert (status, body["code"]) == (409, "CONFLICT")
    status, body = await other_tenant.post(domains_of({"id": held["appId"]}), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")


async def test_a_holder_whose_record_is_back_keeps_the_domain(tenant: Tenant, other_tenant: Tenant, dns: FakeDns):
    held = await verified(other_tenant, dns)
    name = held["verification"][0]["name"]
    dns.records.pop(name)
    await until_missing(other_tenant, held)
    app = await tenant.create_app()
    (record,) = (await until_challenged(tenant, app, held["domain"]))["verification"]
    # The holder publishes its record again before the newcomer retries: the proof's own lookup sees it.
    dns.publish(name, token_of(held), record["value"])
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT"), body
    assert "details" not in body
    kept = await listed(other_tenant, held)
    assert kept["releasedAt"] is None and kept["verified"] is True

    async def present_again() -> bool:
        return (await listed(other_tenant, held))["recordMissingSince"] is None

    await eventually(present_again, within=20)
