"""Legacy routing: the admin command that creates a config, and the deprecated endpoint up to its sunset."""

from __future__ import annotations

import calendar
import secrets
import uuid
from datetime import UTC, date, datetime, timedelta

import orjson
import pytest

from libs.common.db import cursor
from libs.contract.parts import APPS
from services.apps import admin
from services.apps.schemas import responses as schemas
from tests.apps.support import Tenant, assert_shape
from tests.conftest import Stack

SUNSET = datetime(2026, 12, 15, 23, 59, 59, tzinfo=UTC)
DEPRECATION = f"@{calendar.timegm(date(2026, 11, 1).timetuple())}"


def routing_of(domain: dict) -> str:
    return f"/api/v1/domain/{domain['id']}/routing"


async def run_admin(stack: Stack, capsys, *argv: str) -> tuple[int, str, str]:
    status = await admin.run(["--json", *argv], stack.part_environ(APPS))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


async def create_legacy_domain(stack: Stack, capsys, tenant: Tenant, *paths: str) -> dict:
    hostname = f"legacy-{secrets.token_hex(5)}.example.com"
    status, out, err = await run_admin(
        stack,
        capsys,
        "legacy-domain",
        "--org",
        tenant.org.id,
        "--product",
        tenant.product["id"],
        "--domain",
        hostname,
        "--fallback-origin",
        "https://www.example.com",
        *paths,
    )
    assert status == 0, err
    return orjson.loads(out)


async def read_routing(stack: Stack, tenant: Tenant, domain: dict, now: datetime):
    gateway = await stack.start_gateway(clock=lambda: now)
    try:
        response = await gateway.get(routing_of(domain), headers={"x-api-key": tenant.key})
        return response.status, response.headers, await response.json()
    finally:
        await gateway.close()


async def test_the_admin_command_creates_a_product_domain_with_a_routing_config(stack: Stack, capsys, tenant: Tenant):
    app = await tenant.create_app()
    domain = await create_legacy_domain(
        stack, capsys, tenant, "--path", f"/docs/={app['id']}", "--path-stripped", f"blog={app['id']}"
    )
    assert (domain["scope"], domain["productId"], domain["appId"], domain["type"]) == (
        "product",
        tenant.product["id"],
        None,
        "web",
    )
    status, headers, body = await read_routing(stack, tenant, domain, SUNSET - timedelta(days=30))
    assert status == 200
    assert_shape(schemas.LegacyRouting, body["data"])
    config = body["data"]["config"]
    assert {key: config[key] for key in ("version", "hostname", "mode", "fallbackOrigin")} == {
        "version": 1,
        "hostname": domain["domain"],
        "mode": "full_shadow",
        "fallbackOrigin": {"url": "https://www.example.com"},
    }
    assert [(p["pathPrefix"], p["destination"], p["preservePathPrefix"]) for p in config["paths"]] == [
        ("/docs", {"type": "app", "appId": app["id"]}, True),
        ("/blog", {"type": "app", "appId": app["id"]}, False),
    ]
    assert {key: body["data"][key] for key in ("publishedAt", "publishedHash", "publishStatus", "publishError")} == {
        "publishedAt": None,
        "publishedHash": None,
        "publishStatus": "pending",
        "publishError": None,
    }


async def test_routing_answers_with_deprecation_and_sunset_up_to_the_sunset(stack: Stack, capsys, tenant: Tenant):
    domain = await create_legacy_domain(stack, capsys, tenant)
    status, headers, body = await read_routing(stack, tenant, domain, SUNSET)
    assert status == 200
    assert body["data"]["config"]["hostname"] == domain["domain"]
    assert headers["Deprecation"] == DEPRECATION
    assert headers["Sunset"] == "Tue, 15 Dec 2026 23:59:59 GMT"


async def test_routing_is_gone_after_the_sunset(stack: Stack, capsys, tenant: Tenant):
    domain = await create_legacy_domain(stack, capsys, tenant)
    status, headers, body = await read_routing(stack, tenant, domain, SUNSET + timedelta(seconds=1))
    assert status == 410
    assert (body["ok"], body["code"]) == (False, "GONE")
    assert headers["Sunset"] == "Tue, 15 Dec 2026 23:59:59 GMT"
    assert headers["Deprecation"] == DEPRECATION


async def test_routing_of_a_domain_without_a_config_or_of_another_organization_is_not_found(
    stack: Stack, capsys, tenant: Tenant, other_tenant: Tenant
):
    theirs = await create_legacy_domain(stack, capsys, other_tenant)
    app = await tenant.create_app()
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": f"d-{secrets.token_hex(5)}.com"})
    for domain in (theirs, body["data"], {"id": "not-a-uuid"}):
        status, _, answer = await read_routing(stack, tenant, domain, SUNSET - timedelta(days=1))
        assert (status, answer["code"]) == (404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"--product": "other"}, "No such product in this organization."),
        ({"--domain": "Not A Host"}, "Must be a lowercase hostname"),
        ({"--fallback-origin": ""}, "fallbackOrigin"),
        ({"--path": "/docs=00000000-0000-0000-0000-000000000000"}, "No such app in this organization"),
        ({"--path": "/a b=00000000-0000-0000-0000-000000000000"}, "paths.0.pathPrefix"),
    ],
)
async def test_the_admin_command_refuses_invalid_input(
    stack: Stack, capsys, tenant: Tenant, other_tenant: Tenant, change: dict, message: str
):
    options = {
        "--org": tenant.org.id,
        "--product": tenant.product["id"],
        "--domain": f"legacy-{secrets.token_hex(5)}.example.com",
        "--fallback-origin": "https://x.example.com",
    }
    options.update({key: other_tenant.product["id"] if value == "other" else value for key, value in change.items()})
    status, out, err = await run_admin(
        stack, capsys, "legacy-domain", *[part for item in options.items() for part in item]
    )
    assert (status, out) == (1, "")
    assert message in err


async def test_the_admin_command_refuses_a_taken_hostname(stack: Stack, capsys, tenant: Tenant):
    domain = await create_legacy_domain(stack, capsys, tenant)
    status, out, err = await run_admin(
        stack,
        capsys,
        "legacy-domain",
        "--org",
        tenant.org.id,
        "--product",
        tenant.product["id"],
        "--domain",
        domain["domain"],
        "--fallback-origin",
        "https://www.example.com",
    )
    assert status == 1
    assert "already in use" in err


async def test_the_admin_command_prints_the_domain_as_text_without_json(stack: Stack, capsys, tenant: Tenant):
    hostname = f"legacy-{secrets.token_hex(5)}.example.com"
    argv = [
        "legacy-domain",
        "--org",
        tenant.org.id,
        "--product",
        tenant.product["id"],
        "--domain",
        hostname,
        "--fallback-origin",
        "https://www.example.com",
    ]
    assert await admin.run(argv, stack.part_environ(APPS)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"domain: {hostname}" in lines
    assert "scope: product" in lines


async def test_the_admin_command_refuses_a_product_the_apps_service_does_not_know(stack: Stack, capsys, tenant: Tenant):
    argv = [
        "legacy-domain",
        "--org",
        tenant.org.id,
        "--product",
        str(uuid.uuid4()),
        "--domain",
        "x.example.com",
        "--fallback-origin",
        "https://www.example.com",
    ]
    assert await admin.run(argv, stack.part_environ(APPS)) == 1
    assert "No such product in this organization." in capsys.readouterr().err


async def test_an_operators_legacy_domain_is_verified_and_its_routing_ends_with_its_claim(
    stack: Stack, capsys, tenant: Tenant, apps_pool
):
    domain = await create_legacy_domain(stack, capsys, tenant)
    assert (domain["verified"], domain["expiresAt"]) == (True, None)
    status, _, _ = await read_routing(stack, tenant, domain, SUNSET - timedelta(days=30))
    assert status == 200
    # A product's domain cannot be taken through the API; a released row is written here to show the lookup.
    async with cursor(apps_pool) as cur:
        await cur.execute(
            "UPDATE domains SET released_at = clock_timestamp(), release_reason = 'claimed' WHERE id = %s",
            (domain["id"],),
        )
    status, _, body = await read_routing(stack, tenant, domain, SUNSET - timedelta(days=30))
    assert (status, body["code"]) == (404, "NOT_FOUND")
