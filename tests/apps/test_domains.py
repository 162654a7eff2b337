"""An app's domains: hostnames checked against hostile input, lowercase, claimed once across organizations."""

from __future__ import annotations

import secrets

import pytest

from services.apps.edge import LocalEdgeProvider
from services.apps.schemas import responses as schemas
from tests.apps.support import Tenant, assert_shape

# Hostnames are unique across every organization of the test database, so each test makes its own.


def label(size: int) -> str:
    return secrets.token_hex(32)[:size]


def host(name: str = "docs") -> str:
    return f"{name}-{label(10)}.example.com"


def hostname_of_length(length: int) -> str:
    """A fresh valid hostname of exactly `length` characters: labels of up to 63 characters, then ".com"."""
    labels, remaining = [], length - len(".com")
    while remaining > 0:
        size = min(63, remaining)
        labels.append(label(size))
        remaining -= size + 1
    return ".".join(labels)[: length - 4] + ".com"


def domains_of(app: dict) -> str:
    return f"/api/v1/apps/{app['id']}/domains"


async def test_a_domain_is_created_with_the_defaults(tenant: Tenant):
    app, hostname = await tenant.create_app(), host()
    status, body = await tenant.post(domains_of(app), {"domain": hostname})
    assert status == 201
    domain = body["data"]
    assert_shape(schemas.AppDomain, domain)
    assert {key: domain[key] for key in ("domain", "scope", "productId", "appId", "type", "origin")} == {
        "domain": hostname,
        "scope": "app",
        "productId": None,
        "appId": app["id"],
        "type": "web",
        "origin": None,
    }
    assert domain["providerId"] == await LocalEdgeProvider().register(hostname)
    status, listed = await tenant.get(domains_of(app))
    assert listed["data"] == [domain]


async def test_type_and_origin_are_stored(tenant: Tenant):
    app = await tenant.create_app()
    body = {"domain": host("metrics"), "type": "metric", "origin": "https://origin.example.com"}
    status, answer = await tenant.post(domains_of(app), body)
    assert status == 201
    assert (answer["data"]["type"], answer["data"]["origin"]) == ("metric", "https://origin.example.com")


@pytest.mark.parametrize("sent", ["Shop.Example.com", "SHOP.EXAMPLE.COM"])
async def test_uppercase_is_refused_naming_the_lowercase_form(tenant: Tenant, sent: str):
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": sent})
    assert (status, body["code"]) == (422, "VALIDATION_FAILED")
    assert body["details"] == {"domain": "Must be lowercase: use shop.example.com."}
    status, listed = await tenant.get(domains_of(app))
    assert listed["data"] == []


@pytest.mark.parametrize(
    "make",
    [
        lambda: f"{label(2)}.co",
        lambda: f"{label(63)}.com",
        lambda: f"{label(8)}.{'a' * 63}",
        lambda: f"a-{label(8)}.example.com",
        lambda: hostname_of_length(253),
    ],
    ids=["short", "63-character label", "63-character top level", "hyphen inside", "253 characters"],
)
async def test_valid_hostnames_at_the_boundaries_are_accepted(tenant: Tenant, make):
    app, hostname = await tenant.create_app(), make()
    status, body = await tenant.post(domains_of(app), {"domain": hostname})
    assert status == 201, body
    assert body["data"]["domain"] == hostname


@pytest.mark.parametrize(
    "hostname",
    [
        "",
        "localhost",
        "example.com.",
        "-docs.example.com",
        "docs-.example.com",
        f"{'a' * 64}.com",
        "example.c",
        f"example.{'a' * 64}",
        "example.c0m",
        hostname_of_length(254),
        "dócs.example.com",
        "xn--dcs-kla.example.com.",
        "docs.exampl\u212a.com",  # Kelvin sign: str.lower() would make it "k"
        "ｄｏｃｓ.example.com",
        "docs..example.com",
        "docs.example.com\n",
        "docs example.com",
        "docs_site.example.com",
        "https://docs.example.com",
        "docs.example.com:443",
    ],
)
async def test_hostile_hostnames_are_refused(tenant: Tenant, hostname: str):
    app = await tenant.create_app()
    status, body = await tenant.post(domains_of(app), {"domain": hostname})
    assert status == 422
    assert set(body["details"]) == {"domain"}
    status, listed = await tenant.get(domains_of(app))
    assert listed["data"] == []


def test_the_boundary_hostnames_have_the_lengths_they_claim():
    assert (len(hostname_of_length(253)), len(hostname_of_length(254))) == (253, 254)


@pytest.mark.parametrize(("length", "status"), [(1, 201), (2048, 201), (0, 422), (2049, 422)])
async def test_origin_length_boundaries(tenant: Tenant, length: int, status: int):
    app = await tenant.create_app()
    answer_status, body = await tenant.post(domains_of(app), {"domain": host(), "origin": "o" * length})
    assert answer_status == status, body


@pytest.mark.parametrize("body", [{"domain": "mail.example.com", "type": "mail"}, {"domain": 5}, {}])
async def test_malformed_domains_are_refused(tenant: Tenant, body: dict):
    app = await tenant.create_app()
    status, answer = await tenant.post(domains_of(app), body)
    assert status == 422


async def test_a_hostname_of_another_organization_cannot_be_claimed(tenant: Tenant, other_tenant: Tenant):
    theirs = await other_tenant.create_app()
    hostname = host("shop")
    status, _ = await other_tenant.post(domains_of(theirs), {"domain": hostname})
    assert status == 201
    mine = await tenant.create_app()
    status, body = await tenant.post(domains_of(mine), {"domain": hostname})
    assert (status, body["code"]) == (409, "CONFLICT")
    status, listed = await tenant.get(domains_of(mine))
    assert listed["data"] == []


async def test_a_hostname_is_live_in_one_app_only(tenant: Tenant):
    first, second = await tenant.create_app(slug="one"), await tenant.create_app(slug="two")
    hostname = host()
    await tenant.post(domains_of(first), {"domain": hostname})
    status, body = await tenant.post(domains_of(second), {"domain": hostname})
    assert status == 409


async def test_domains_of_another_organizations_app_are_not_found(tenant: Tenant, other_tenant: Tenant):
    theirs = await other_tenant.create_app()
    status, _ = await tenant.post(domains_of(theirs), {"domain": host()})
    assert status == 404
    status, _ = await tenant.get(domains_of(theirs))
    assert status == 404
