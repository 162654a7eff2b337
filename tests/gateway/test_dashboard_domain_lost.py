"""A verified domain whose TXT record is gone, then taken over by another organization, as its
app's page shows it over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from libs.contract.parts import APPS
from tests.apps.fake_dns import FakeDns, reclaim_environ, start_fake_dns
from tests.apps.support import base_url
from tests.conftest import Client, Stack, build_app
from tests.factories import IdentityFactory, eventually
from tests.gateway.dashboard_client import api, page, signed_in


@pytest.fixture
async def reclaiming(stack: Stack, aiohttp_server: Any) -> AsyncIterator[tuple[Client, FakeDns]]:
    """A gateway whose apps service looks verified domains' TXT records up again every second, in a
    DNS server of the test's; one missing for a second may be taken over."""
    dns = await start_fake_dns()
    server = await aiohttp_server(build_app(APPS, stack.part_environ(APPS, **reclaim_environ(dns, 1))))
    client = await stack.start_gateway({"APPS_URL": base_url(server)})
    yield client, dns
    await client.close()
    dns.close()


async def test_a_domain_taken_over_is_shown_lost_on_its_apps_page(
    reclaiming: tuple[Client, FakeDns], identity: IdentityFactory
):
    gateway, dns = reclaiming
    org = await identity.organization()
    client = await signed_in(gateway, *await identity.account((org, "member")))
    key = await identity.api_key(org)
    app = await api(client, key, "POST", "/api/v1/apps", json={"name": "Handbook site"})
    hostname = f"{org.slug}.example.org"
    domains = f"/api/v1/apps/{app['id']}/domains"
    domain = await api(client, key, "POST", domains, json={"domain": hostname})
    (record,) = domain["verification"]
    dns.publish(record["name"], record["value"])
    assert (await api(client, key, "POST", f"{domains}/{domain['id']}/verify", json={}))["verified"] is True
    base = f"/{org.slug}/apps/{app['id']}"

    dns.records.pop(record["name"])  # the hostname's DNS changes hands

    async def missing() -> bool:
        return "record missing" in await page(client, base)

    await eventually(missing, within=20)
    warned = await page(client, base)
    assert f"The TXT record {record['name']} has been missing since" in warned

    newcomer = await identity.organization()
    their_key = await identity.api_key(newcomer)
    their_app = await api(gateway, their_key, "POST", "/api/v1/apps", json={"name": "New owner"})
    theirs = f"/api/v1/apps/{their_app['id']}/domains"
    offered: list[dict[str, Any]] = []

    async def challenged() -> bool:
        response = await gateway.post(theirs, json={"domain": hostname}, headers={"x-api-key": their_key})
        body = await response.json()
        assert response.status == 409, body
        offered.extend(body.get("details", {}).get("verification", []))
        return bool(offered)

    await eventually(challenged, within=20)
    dns.publish(record["name"], offered[0]["value"])
    await api(gateway, their_key, "POST", theirs, json={"domain": hostname})

    shown = await page(client, base)
    assert 'class="badge badge-lost">lost<' in shown
    assert "another organization proved this hostname after its TXT record had been missing since" in shown
    assert f'href="https://{hostname}/"' not in shown  # no longer served for this app
    assert newcomer.slug not in shown and their_app["id"] not in shown
