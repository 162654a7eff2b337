"""Every event that claims an agent is verified: published addresses, forward-confirmed reverse DNS
(answered by a DNS server on loopback) or a Web Bot Auth signature (a key directory on loopback)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.apps.fake_dns import FakeDns
from tests.traffic.support import TESTBOT_UA, KeyDirectory, Tenant, event

FIELDS = ("botId", "claimedBotId", "verified", "matchedBy", "spoofed", "clientNetwork")


async def recorded(tenant: Tenant, sent: dict) -> dict:
    status, body = await tenant.send([sent])
    assert (status, body["data"]["accepted"]) == (200, 1), body
    status, page = await tenant.get("/api/v1/ai-traffic/logs", limit="200")
    assert status == 200
    found = next(item for item in page["data"]["items"] if item["id"] == sent["id"])
    return {name: found[name] for name in FIELDS}


async def test_an_address_in_the_published_ranges_is_verified_by_ip(tenant: Tenant):
    sent = event(tenant.host, userAgent=TESTBOT_UA, ip="198.51.100.23")
    assert await recorded(tenant, sent) == {
        "botId": "testbot",
        "claimedBotId": "testbot",
        "verified": True,
        "matchedBy": "ip",
        "spoofed": False,
        "clientNetwork": "198.51.100.0/24",
    }


async def test_forward_confirmed_reverse_dns_verifies(tenant: Tenant, dns: FakeDns):
    dns.publish_record("10.2.0.192.in-addr.arpa", "PTR", "crawler-7.crawl.testbot.example.")
    dns.publish_record("crawler-7.crawl.testbot.example", "A", "192.0.2.10")
    sent = event(tenant.host, userAgent=TESTBOT_UA, ip="192.0.2.10")
    assert await recorded(tenant, sent) == {
        "botId": "testbot",
        "claimedBotId": "testbot",
        "verified": True,
        "matchedBy": "rdns",
        "spoofed": False,
        "clientNetwork": "192.0.2.0/24",
    }


async def test_a_reverse_name_that_does_not_lead_back_is_a_spoofed_claim(tenant: Tenant, dns: FakeDns):
    dns.publish_record("11.2.0.192.in-addr.arpa", "PTR", "crawler-8.crawl.testbot.example.")
    dns.publish_record("crawler-8.crawl.testbot.example", "A", "192.0.2.99")
    sent = event(tenant.host, userAgent=TESTBOT_UA, ip="192.0.2.11")
    # Outside the operator's complete list and unproven otherwise: not counted as TestBot.
    assert await recorded(tenant, sent) == {
        "botId": None,
        "claimedBotId": "testbot",
        "verified": False,
        "matchedBy": "ua",
        "spoofed": True,
        "clientNetwork": "192.0.2.0/24",
    }


async def test_a_web_bot_auth_signature_verifies(tenant: Tenant, key_directory: KeyDirectory):
    at = datetime.now(UTC) - timedelta(minutes=3)
    signed = key_directory.sign(tenant.host, "/pricing", at)
    sent = event(
        tenant.host, userAgent=TESTBOT_UA, ip="203.0.113.50", path="/pricing", occurredAt=at.isoformat(), **signed
    )
    assert await recorded(tenant, sent) == {
        "botId": "testbot",
        "claimedBotId": "testbot",
        "verified": True,
        "matchedBy": "signature",
        "spoofed": False,
        "clientNetwork": "203.0.113.0/24",
    }


async def test_a_signature_by_another_key_or_for_another_host_does_not(tenant: Tenant, key_directory: KeyDirectory):
    at = datetime.now(UTC)
    forged = key_directory.sign(tenant.host, "/", at, key=Ed25519PrivateKey.generate())
    elsewhere = key_directory.sign("other.example.net", "/", at)
    for signed in (forged, elsewhere):
        sent = event(tenant.host, userAgent=TESTBOT_UA, ip="203.0.113.51", path="/", **signed)
        assert (await recorded(tenant, sent))["matchedBy"] == "ua"


async def test_an_agent_without_published_ranges_is_claimed_by_its_user_agent(tenant: Tenant):
    sent = event(tenant.host, ip="2001:db8:1234:5678::1")
    assert await recorded(tenant, sent) == {
        "botId": "gptbot",
        "claimedBotId": "gptbot",
        "verified": False,
        "matchedBy": "ua",
        "spoofed": False,
        "clientNetwork": "2001:db8:1234::/48",
    }
