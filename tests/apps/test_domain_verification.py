"""Proving a domain: its challenge, the TXT lookup and why it failed, through the gateway."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta

import pytest

from services.apps.schemas import responses as schemas
from tests.apps.fake_dns import FakeDns
from tests.apps.support import Tenant, assert_shape


def host() -> str:
    return f"proof-{secrets.token_hex(5)}.example.com"


def domains_of(app: dict) -> str:
    return f"/api/v1/apps/{app['id']}/domains"


def verify_path(domain: dict) -> str:
    return f"/api/v1/apps/{domain['appId']}/domains/{domain['id']}/verify"


async def claim(tenant: Tenant, hostname: str | None = None) -> dict:
    """A new app of the tenant's with a new domain, claimed through the API."""
    app = await tenant.create_app(slug=f"site-{secrets.token_hex(4)}")
    status, body = await tenant.post(domains_of(app), {"domain": hostname or host()})
    assert status == 201, body
    domain: dict = body["data"]
    return domain


def token_of(domain: dict) -> str:
    token: str = domain["verification"][0]["value"]
    return token


async def listed(tenant: Tenant, domain: dict) -> dict:
    status, body = await tenant.get(f"/api/v1/apps/{domain['appId']}/domains")
    assert status == 200
    (found,) = [d for d in body["data"] if d["id"] == domain["id"]]
    return found


async def test_a_new_domain_is_an_unverified_claim_with_its_challenge(tenant: Tenant):
    hostname = host()
    before = datetime.now(UTC)
    domain = await claim(tenant, hostname)
    assert_shape(schemas.AppDomain, domain)
    assert domain["verified"] is False
    assert domain["verification"] == [
        {"type": "TXT", "name": f"_aivis-challenge.{hostname}", "value": token_of(domain)}
    ]
    assert re.fullmatch("[0-9a-f]{64}", token_of(domain))
    expires = datetime.fromisoformat(domain["expiresAt"])
    assert before + timedelta(days=7) <= expires <= datetime.now(UTC) + timedelta(days=7)
    assert (domain["verifiedAt"], domain["verificationError"], domain["releasedAt"]) == (None, None, None)
    assert await listed(tenant, domain) == domain


async def test_verify_finds_the_record_and_marks_the_domain_verified(tenant: Tenant, dns: FakeDns):
    domain = await claim(tenant)
    record = domain["verification"][0]
    dns.publish(record["name"], "some-other-site-verification", token_of(domain))
    status, body = await tenant.post(verify_path(domain), {})
    assert status == 200, body
    verified = body["data"]
    assert_shape(schemas.AppDomain, verified)
    assert (verified["verified"], verified["verificationError"], verified["expiresAt"]) == (True, None, None)
    assert verified["verifiedAt"] is not None and verified["verificationCheckedAt"] is not None
    assert dns.asked(record["name"]) == [record["name"]]
    assert await listed(tenant, domain) == verified
    # Verified stays verified: no further lookup.
    status, again = await tenant.post(verify_path(domain), {})
    assert (status, again["data"]) == (200, verified)
    assert dns.asked(record["name"]) == [record["name"]]


@pytest.mark.parametrize(
    ("arrange", "code"),
    [
        (lambda dns, name: None, "NO_RECORD"),
        (lambda dns, name: dns.publish(name, "not-the-token"), "WRONG_VALUE"),
        (lambda dns, name: dns.silent.add(name), "DNS_TIMEOUT"),
        (lambda dns, name: dns.failing.add(name), "DNS_ERROR"),
    ],
    ids=["no record", "wrong value", "timeout", "server failure"],
)
async def test_a_failed_check_says_why_and_is_kept(tenant: Tenant, dns: FakeDns, arrange, code: str):
    domain = await claim(tenant)
    arrange(dns, domain["verification"][0]["name"])
    status, body = await tenant.post(verify_path(domain), {})
    assert status == 200, body
    checked = body["data"]
    assert checked["verified"] is False
    assert checked["verificationError"]["code"] == code
    assert domain["verification"][0]["name"] in checked["verificationError"]["message"]
    assert checked["expiresAt"] == domain["expiresAt"]
    assert await listed(tenant, domain) == checked


async def test_a_record_published_after_a_failed_check_verifies(tenant: Tenant, dns: FakeDns):
    domain = await claim(tenant)
    status, body = await tenant.post(verify_path(domain), {})
    assert body["data"]["verificationError"]["code"] == "NO_RECORD"
    dns.publish(domain["verification"][0]["name"], token_of(domain))
    status, body = await tenant.post(verify_path(domain), {})
    assert (status, body["data"]["verified"], body["data"]["verificationError"]) == (200, True, None)


async def test_verifying_a_domain_of_another_app_or_organization_is_not_found(tenant: Tenant, other_tenant: Tenant):
    theirs = await claim(other_tenant)
    mine = await tenant.create_app()
    for path in (
        verify_path(theirs),
        f"/api/v1/apps/{mine['id']}/domains/{theirs['id']}/verify",
        f"/api/v1/apps/{mine['id']}/domains/not-an-id/verify",
    ):
        status, body = await tenant.post(path, {})
        assert (status, body["code"]) == (404, "NOT_FOUND"), path
    assert (await listed(other_tenant, theirs))["verificationCheckedAt"] is None


async def test_verify_needs_the_write_scope(tenant: Tenant, identity):
    domain = await claim(tenant)
    reader = await identity.api_key(tenant.org, frozenset({"content:read"}))
    response = await tenant.client.post(verify_path(domain), json={}, headers={"x-api-key": reader})
    assert response.status == 403
    assert (await listed(tenant, domain))["verificationCheckedAt"] is None
