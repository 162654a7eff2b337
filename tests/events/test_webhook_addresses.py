"""Webhook URLs that name an internal address in another encoding are refused through the
gateway, at creation and on change, although the test stack allows loopback as written."""

from __future__ import annotations

import pytest

from tests.events.conftest import Receiver, Tenant, start_receiver

EMBEDDED_LOOPBACK = [
    "http://[2002:7f00:1::]/hook",  # 6to4
    "http://[2002:a9fe:a9fe::]/latest",  # 6to4 of the metadata address
    "http://[64:ff9b::7f00:1]/hook",  # NAT64
    "http://[64:ff9b:1::7f00:1]/hook",  # local-use NAT64
    "http://[::127.0.0.1]/hook",  # IPv4-compatible
    "http://[::ffff:169.254.169.254]/latest",  # IPv4-mapped
    "http://[::ffff:0:a00:7]/hook",  # IPv4-translated
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook",  # Teredo
    "http://[fec0::1]/hook",  # site-local
    "http://0xa9.0xfe.0xa9.0xfe/latest",  # the metadata address in hex
    "http://167772167/hook",  # 10.0.0.7 as one number
]


@pytest.mark.parametrize("url", EMBEDDED_LOOPBACK)
async def test_an_embedded_internal_address_is_refused_at_creation(tenant: Tenant, url: str):
    status, answer = await tenant.call("POST", "/api/v1/webhook-endpoints", json={"url": url, "events": ["*"]})
    assert status == 422, answer
    assert "internal address" in answer["details"]["url"]
    _, listed = await tenant.call("GET", "/api/v1/webhook-endpoints")
    assert listed["data"]["endpoints"] == []


async def test_an_embedded_internal_address_is_refused_on_change(tenant: Tenant, receivers: list[Receiver]):
    endpoint = await tenant.endpoint((await start_receiver(receivers)).url)
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}"
    status, answer = await tenant.call("PATCH", path, json={"url": "http://[2002:7f00:1::]:8080/hook"})
    assert status == 422, answer
    _, stored = await tenant.call("GET", path)
    assert stored["data"]["url"] == endpoint["url"]
