"""Every event that claims an agent is verified: published addresses, forward-confirmed reverse DNS
(answered by a DNS server on loopback) or a Web Bot Auth signature (a key directory on loopback)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.apps.fake_dns import FakeDns
from tests.traffic.support import GPTBOT_UA, TESTBOT_UA, KeyDirectory, Tenant, event

CLAUDEBOT_UA = "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"

FIELDS = ("botId", "claimedBotId", "verified", "matchedBy", "spoofed", "clientNetwork")


async def recorded(tenant: Tenant, sent: dict) -> dict:
    status, body = await tenant.send([sent])
    assert status == 200, body
    assert body["data"]["accepted"] == 1, body
    status, page = await tenant.get("/api/v1/ai-traffic/logs", limit="200")
    assert status == 200
    found = next(item for item in page["data"]["items"] if item["id"] == sent["id"])
    return {name: found[name] for name in FIELDS}


def verdict(bot: str | None, matched_by: str, network: str, claimed: str = "testbot") -> dict:
    """What the logs say of a claim of `claimed`: counted as `bot` (None: spoofed), and how it was told."""
    return {
        "botId": bot,
        "claimedBotId": claimed,
        "verified": matched_by != "ua",
        "matchedBy": matched_by,
        "spoofed": bot is None,
        "clientNetwork": network,
    }


async def test_an_address_in_the_published_ranges_is_verified_by_ip(tenant: Tenant):
    sent = event(tenant.host, userAgent=TESTBOT_UA, ip="198.51.100.23")
    assert await recorded(tenant, sent) == verdict("testbot", "ip", "198.51.100.0/24")


async def test_forward_confirmed_reverse_dns_verifies(tenant: Tenant, dns: FakeDns):
    dns.publish_record("10.2.0.192.in-addr.arpa", "PTR", "crawler-7.crawl.testbot.example.")
    dns.publish_record("crawler-7.crawl.testbot.example", "A", "192.0.2.10")
    sent = event(tenant.host, userAgent=TESTBOT_UA, ip="192.0.2.10")
    assert await recorded(tenant, sent) == verdict("testbot", "rdns", "192.0.2.0/24")


async def test_a_reverse_name_that_does_not_lead_back_is_a_spoofed_claim(tenant: Tenant, dns: FakeDns):
    dns.publish_record("11.2.0.192.in-addr.arpa", "PTR", "crawler-8.crawl.testbot.example.")
    dns.publish_record("crawler-8.crawl.testbot.example", "A", "192.0.2.99")
    sent = event(tenant.host, userAgent=TESTBOT_UA, ip="192.0.2.11")
    # Outside the operator's complete list and unproven otherwise: not counted as TestBot.
    assert await recorded(tenant, sent) == verdict(None, "ua", "192.0.2.0/24")


async def test_a_web_bot_auth_signature_verifies(tenant: Tenant, key_directory: KeyDirectory):
    at = datetime.now(UTC) - timedelta(minutes=3)
    signed = key_directory.sign(tenant.host, "/pricing", at)
    sent = event(
        tenant.host, userAgent=TESTBOT_UA, ip="203.0.113.50", path="/pricing", occurredAt=at.isoformat(), **signed
    )
    assert await recorded(tenant, sent) == verdict("testbot", "signature", "203.0.113.0/24")


async def test_a_signature_by_another_key_or_for_another_host_does_not(tenant: Tenant, key_directory: KeyDirectory):
    at = datetime.now(UTC)
    forged = key_directory.sign(tenant.host, "/", at, key=Ed25519PrivateKey.generate())
    elsewhere = key_directory.sign("other.example.net", "/", at)
    for signed in (forged, elsewhere):
        sent = event(tenant.host, userAgent=TESTBOT_UA, ip="203.0.113.51", path="/", **signed)
        assert (await recorded(tenant, sent))["matchedBy"] == "ua"


async def test_an_agent_without_published_ranges_is_claimed_by_its_user_agent(tenant: Tenant):
    sent = event(tenant.host, userAgent=CLAUDEBOT_UA, ip="2001:db8:1234:5678::1")
    assert await recorded(tenant, sent) == verdict("claudebot", "ua", "2001:db8:1234::/48", claimed="claudebot")


# The operators' own lists, as the committed snapshot holds them (services/traffic/data/agents.json).
PUBLISHED = {
    "gptbot": (GPTBOT_UA, "20.171.206.7", "20.171.206.0/24"),
    "oai-searchbot": (
        "Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)",
        "51.8.102.30",
        "51.8.102.0/24",
    ),
    "chatgpt-user": (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0",
        "23.98.142.180",
        "23.98.142.0/24",
    ),
    "perplexitybot": (
        "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
        "107.20.236.150",
        "107.20.236.0/24",
    ),
    "googlebot": (
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "66.249.66.1",
        "66.249.66.0/24",
    ),
    "bingbot": (
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "157.55.39.10",
        "157.55.39.0/24",
    ),
    "ccbot": ("CCBot/2.0 (https://commoncrawl.org/faq/)", "18.97.14.84", "18.97.14.0/24"),
}


async def test_an_agent_from_its_operators_published_addresses_is_verified_by_ip(tenant: Tenant):
    for bot, (user_agent, address, network) in PUBLISHED.items():
        sent = event(tenant.host, userAgent=user_agent, ip=address)
        assert await recorded(tenant, sent) == verdict(bot, "ip", network, claimed=bot), bot


async def test_a_claim_from_outside_an_operators_complete_list_is_spoofed(tenant: Tenant):
    for bot, (user_agent, _, _) in PUBLISHED.items():
        sent = event(tenant.host, userAgent=user_agent, ip="203.0.113.7")
        assert await recorded(tenant, sent) == verdict(None, "ua", "203.0.113.0/24", claimed=bot), bot
