"""Writes authenticated by the dashboard's cookie are refused when another site's page made them
(bodiless POSTs included, which need no CORS preflight), through the gateway."""

from __future__ import annotations

import pytest

from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.factories import IdentityFactory


async def cookie_of(identity: IdentityFactory, tenant: Tenant) -> str:
    return f"app-auth.session_token={await identity.session(await identity.user(tenant.org), tenant.org)}"


@pytest.mark.parametrize(
    "browser",
    [
        {"Origin": "https://attacker.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site"},
    ],
)
@pytest.mark.parametrize("action", ["rotate-secret", "test"])
async def test_a_cookie_write_from_another_site_is_refused(
    tenant: Tenant, identity: IdentityFactory, receivers: list[Receiver], browser: dict[str, str], action: str
):
    endpoint = await tenant.endpoint((await start_receiver(receivers)).url)
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}"
    headers = {"Cookie": await cookie_of(identity, tenant), **browser}
    async with tenant.gateway.post(f"{path}/{action}", headers=headers) as answer:
        body = await answer.json()
        assert (answer.status, body["code"]) == (403, "FORBIDDEN"), body
    _, deliveries = await tenant.call("GET", f"{path}/deliveries")
    assert deliveries["data"]["deliveries"] == []  # no test ping was queued


async def test_a_cookie_write_from_the_dashboard_itself_or_a_key_from_anywhere_is_served(
    tenant: Tenant, identity: IdentityFactory, receivers: list[Receiver]
):
    endpoint = await tenant.endpoint((await start_receiver(receivers)).url)
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}/rotate-secret"
    own = str(tenant.gateway.make_url("/")).rstrip("/")
    same_site = {"Cookie": await cookie_of(identity, tenant), "Origin": own, "Sec-Fetch-Site": "same-origin"}
    async with tenant.gateway.post(path, headers=same_site) as answer:
        assert answer.status == 200, await answer.text()
        first = (await answer.json())["data"]["secret"]
    status, answer = await tenant.call("POST", path, headers={"Origin": "https://tool.example"})
    assert status == 200 and answer["data"]["secret"] != first
