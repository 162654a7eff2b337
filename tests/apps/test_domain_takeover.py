"""One holder per hostname, but no squatting: an unproven claim lapses, or is taken over by whoever proves it."""

from __future__ import annotations

import asyncio
from datetime import datetime

from libs.common.db import cursor
from tests.apps.conftest import make_tenant
from tests.apps.fake_dns import FakeDns
from tests.apps.support import FakeContent, Tenant
from tests.apps.test_domain_verification import claim, domains_of, host, listed, token_of, verify_path
from tests.factories import eventually


async def lapse(apps_pool, domain: dict) -> None:
    """Let the domain's claim run out: its expiry a second ago (the sweep runs every second)."""
    async with cursor(apps_pool) as cur:
        await cur.execute(
            "UPDATE domains SET expires_at = clock_timestamp() - interval '1 second' WHERE id = %s", (domain["id"],)
        )


async def challenged(tenant: Tenant, app: dict, hostname: str) -> dict:
    status, body = await tenant.post(domains_of(app), {"domain": hostname})
    assert (status, body["code"]) == (409, "CONFLICT"), body
    details: dict = body["details"]
    return details


async def test_a_newcomer_gets_a_challenge_that_names_no_holder(tenant: Tenant, other_tenant: Tenant):
    held = await claim(other_tenant)
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")
    details = body["details"]
    assert set(details) == {"domain", "verification", "expiresAt"}
    (record,) = details["verification"]
    assert record["type"] == "TXT" and record["name"] == f"_aivis-challenge.{held['domain']}"
    assert record["value"] != token_of(held)
    for secret in (other_tenant.org.id, other_tenant.org.slug, other_tenant.org.name, held["id"], held["appId"]):
        assert secret not in str(body)
    # The same challenge on every try, until it is proven or lapses.
    assert (await challenged(tenant, app, held["domain"]))["verification"] == [record]
    status, listed_body = await tenant.get(domains_of(app))
    assert listed_body["data"] == []


async def test_a_retry_without_the_record_says_why(tenant: Tenant, other_tenant: Tenant, dns: FakeDns):
    held = await claim(other_tenant)
    app = await tenant.create_app()
    first = await challenged(tenant, app, held["domain"])
    dns.publish(first["verification"][0]["name"], token_of(held))  # the holder's token proves nothing for us
    second = await challenged(tenant, app, held["domain"])
    assert second["verificationError"]["code"] == "WRONG_VALUE"
    assert second["verification"] == first["verification"]
    assert (await listed(other_tenant, held))["releasedAt"] is None


async def test_proving_the_challenge_takes_the_hostname_over(
    tenant: Tenant, other_tenant: Tenant, dns: FakeDns, content: FakeContent
):
    held = await claim(other_tenant)
    app = await tenant.create_app()
    (record,) = (await challenged(tenant, app, held["domain"]))["verification"]
    dns.publish(record["name"], token_of(held), record["value"])
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert status == 201, body
    mine = body["data"]
    assert (mine["domain"], mine["appId"], mine["verified"], mine["expiresAt"]) == (
        held["domain"],
        app["id"],
        True,
        None,
    )
    assert mine["verification"] == [record]
    assert (await tenant.get(domains_of(app)))[1]["data"] == [mine]
    released = await listed(other_tenant, held)
    assert released["releaseReason"] == "claimed" and released["releasedAt"] is not None
    # The released claim can no longer be proven, and the hostname is no longer the holder's to add.
    status, body = await other_tenant.post(verify_path(held), {})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert "released" in body["message"]
    status, body = await other_tenant.post(domains_of({"id": held["appId"]}), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert "details" not in body
    # The content service is told, for the holder's organization, to detach the released domain.
    await eventually(lambda: _announced(content, (other_tenant.org.id, held["id"])))


async def _announced(content: FakeContent, entry: tuple[str, str]) -> bool:
    return entry in content.withdrawn


async def test_a_verified_domain_cannot_be_taken(tenant: Tenant, other_tenant: Tenant, dns: FakeDns):
    held = await claim(other_tenant)
    dns.publish(held["verification"][0]["name"], token_of(held))
    status, _ = await other_tenant.post(verify_path(held), {})
    assert status == 200
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert "details" not in body
    assert (await listed(other_tenant, held))["releasedAt"] is None


async def test_a_holder_verifying_first_keeps_the_hostname(tenant: Tenant, other_tenant: Tenant, dns: FakeDns):
    held = await claim(other_tenant)
    app = await tenant.create_app()
    (record,) = (await challenged(tenant, app, held["domain"]))["verification"]
    dns.publish(record["name"], token_of(held), record["value"])
    status, _ = await other_tenant.post(verify_path(held), {})
    assert status == 200
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert (await listed(other_tenant, held))["verified"] is True


async def test_a_lapsed_claim_frees_the_hostname(tenant: Tenant, other_tenant: Tenant, apps_pool):
    held = await claim(other_tenant)
    await lapse(apps_pool, held)
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert status == 201, body
    assert body["data"]["verified"] is False and body["data"]["verification"] != held["verification"]
    released = await listed(other_tenant, held)
    assert released["releaseReason"] == "expired"
    assert datetime.fromisoformat(released["releasedAt"]) < datetime.fromisoformat(body["data"]["createdAt"])


async def test_a_lapsed_claim_cannot_be_proven_and_is_released_by_the_sweep(tenant: Tenant, apps_pool, dns: FakeDns):
    domain = await claim(tenant)
    dns.publish(domain["verification"][0]["name"], token_of(domain))
    await lapse(apps_pool, domain)
    status, body = await tenant.post(verify_path(domain), {})
    assert (status, body["code"]) == (409, "CONFLICT")

    async def released() -> bool:
        return (await listed(tenant, domain))["releaseReason"] == "expired"

    await eventually(released)
    # Added again, the hostname is a new claim with a new challenge.
    status, body = await tenant.post(domains_of({"id": domain["appId"]}), {"domain": domain["domain"]})
    assert status == 201, body
    assert body["data"]["id"] != domain["id"] and token_of(body["data"]) != token_of(domain)


async def test_the_same_organization_meets_a_plain_conflict(tenant: Tenant):
    held = await claim(tenant)
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": held["domain"]})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert "details" not in body


async def test_a_free_hostname_is_claimed_without_any_lookup(tenant: Tenant, dns: FakeDns):
    hostname = host()
    await claim(tenant, hostname)
    assert [name for name in dns.questions if name.endswith(hostname)] == []


async def test_two_newcomers_proving_at_once_one_wins(
    api, identity, apps_products, tenant: Tenant, other_tenant: Tenant, dns: FakeDns
):
    third = await make_tenant(api, identity, apps_products)
    held = await claim(other_tenant)
    apps = [await tenant.create_app(), await third.create_app()]
    records = [
        (await challenged(who, app, held["domain"]))["verification"][0]
        for who, app in zip((tenant, third), apps, strict=True)
    ]
    dns.publish(records[0]["name"], *(record["value"] for record in records))
    answers = await asyncio.gather(
        *(who.post(domains_of(app), {"domain": held["domain"]}) for who, app in zip((tenant, third), apps, strict=True))
    )
    assert sorted(status for status, _ in answers) == [201, 409]
    (winner,) = [body["data"] for status, body in answers if status == 201]
    assert winner["verified"] is True
    assert (await listed(other_tenant, held))["releaseReason"] == "claimed"
