"""The agent catalog: its snapshot's build from the maintained package, and how a request is told apart."""

from __future__ import annotations

import asyncio
import ipaddress
import shutil
import sys
from asyncio.subprocess import PIPE
from datetime import UTC, datetime
from pathlib import Path

from aiohttp import web

from services.traffic.catalog import SNAPSHOT, AddressRanges, Catalog
from services.traffic.refresh import build, package_entries

ROOT = Path(__file__).resolve().parents[2]

CATALOG = Catalog.load()


def test_agents_are_told_by_their_user_agent():
    cases = {
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)": (
            "gptbot"
        ),
        "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)": "claudebot",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot": (
            "chatgpt-user"
        ),
        "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)": "perplexitybot",
        "CCBot/2.0 (https://commoncrawl.org/faq/)": "ccbot",
    }
    assert {ua: getattr(CATALOG.agent_of(ua), "id", None) for ua in cases} == cases
    assert CATALOG.agent_of("Mozilla/5.0 (X11; Linux x86_64) Firefox/131.0") is None


def test_referrals_are_told_by_the_answer_engines_host():
    assert CATALOG.referrer_of("https://chatgpt.com/c/1").platform == "chatgpt"
    assert CATALOG.referrer_of("https://www.perplexity.ai/search?q=x").platform == "perplexity"
    assert CATALOG.referrer_of("https://notchatgpt.com/") is None
    assert CATALOG.referrer_of("not a url") is None
    assert CATALOG.referrer_of(None) is None


def test_the_snapshot_is_what_the_package_and_the_curation_build():
    committed = Catalog.load().source
    rebuilt = build(package_entries(), None, datetime(2026, 11, 28, tzinfo=UTC))
    assert rebuilt["source"]["userAgents"] == committed["userAgents"]
    assert [agent["id"] for agent in rebuilt["agents"]] == [agent.id for agent in CATALOG.agents]
    assert {agent["category"] for agent in rebuilt["agents"]} <= {
        "training",
        "search",
        "user_fetch",
        "agent",
        "dataset",
        "other",
    }


# Operators that publish the complete list of their agents' addresses, and one address of each list.
PUBLISHED = {
    "gptbot": "20.171.206.7",
    "oai-searchbot": "51.8.102.30",
    "chatgpt-user": "23.98.142.180",
    "perplexitybot": "107.20.236.150",
    "perplexity-user": "44.208.221.197",
    "googlebot": "66.249.66.1",
    "bingbot": "157.55.39.10",
    "applebot": "17.241.208.170",
    "ccbot": "18.97.14.84",
}


def test_the_snapshot_holds_the_operators_published_ranges_with_their_source_and_date():
    for bot, address in PUBLISHED.items():
        agent = CATALOG.by_id[bot]
        ranges = agent.document["verification"]["ipRanges"]
        assert agent.ip_ranges_complete and agent.from_published_range(ipaddress.ip_address(address)), bot
        assert ranges["url"].startswith("https://") and ranges["fetchedAt"].startswith("2026-"), bot
    assert not CATALOG.by_id["gptbot"].from_published_range(ipaddress.ip_address("203.0.113.7"))


async def refresh(*args: str) -> tuple[int, str]:
    """The operator command as an operator runs it: its exit status and what it printed on stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "services.traffic.refresh", *args, cwd=ROOT, stdout=PIPE, stderr=PIPE
    )
    _, stderr = await process.communicate()
    return process.returncode or 0, stderr.decode()


async def test_the_refresh_command_reads_the_published_lists_again(aiohttp_server, tmp_path: Path):
    """Offline: the operators' lists come from a server on loopback standing in for their hosts."""
    lists = {
        "/openai.com/gptbot.json": {
            "creationTime": "2026-11-20T10:00:00Z",
            "prefixes": [{"ipv4Prefix": "192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}],
        },
        "/www.bing.com/toolbox/bingbot.json": {"prefixes": [{"ipv4Prefix": "198.51.100.0/24"}]},
        "/developers.google.com/static/search/apis/ipranges/googlebot.json": {"prefixes": [{"ipv4Prefix": "nope"}]},
    }

    async def served(request: web.Request) -> web.Response:
        if request.path not in lists:
            raise web.HTTPNotFound()
        return web.json_response(lists[request.path])

    app = web.Application()
    app.router.add_get("/{path:.*}", served)
    server = await aiohttp_server(app)
    output = tmp_path / "agents.json"
    shutil.copy(SNAPSHOT, output)
    mirror = str(server.make_url(""))

    status, stderr = await refresh("--ip-ranges", "--mirror", mirror, "--output", str(output))
    assert status == 0, stderr
    refreshed = Catalog.load(output)
    gptbot = refreshed.by_id["gptbot"].document["verification"]["ipRanges"]
    assert gptbot | {"fetchedAt": None} == {
        "url": "https://openai.com/gptbot.json",
        "prefixes": ["192.0.2.0/24", "2001:db8::/32"],
        "complete": True,
        "publishedAt": "2026-11-20T10:00:00Z",
        "fetchedAt": None,
        "via": f"{mirror.rstrip('/')}/openai.com/gptbot.json",
    }
    assert datetime.fromisoformat(gptbot["fetchedAt"]).date() == datetime.now(UTC).date()
    assert refreshed.by_id["bingbot"].ip_ranges == (ipaddress.ip_network("198.51.100.0/24"),)
    # A list that is not networks, or is not there, keeps what the snapshot had, and says so.
    for kept in ("googlebot", "perplexitybot"):
        assert refreshed.by_id[kept].ip_ranges == CATALOG.by_id[kept].ip_ranges, kept
    assert "not refreshed: https://developers.google.com/static/search/apis/ipranges/googlebot.json" in stderr
    assert "not refreshed: https://www.perplexity.ai/perplexitybot.json" in stderr


def test_an_address_is_found_among_overlapping_networks_of_both_versions():
    networks = tuple(
        ipaddress.ip_network(n)
        for n in ("192.0.2.0/24", "192.0.2.128/25", "198.51.100.8/29", "198.51.100.16/29", "2001:db8::/48")
    )
    ranges = AddressRanges(networks)
    for address in ("192.0.2.0", "192.0.2.255", "198.51.100.8", "198.51.100.23", "2001:db8::1"):
        assert ipaddress.ip_address(address) in ranges, address
    for address in ("192.0.3.0", "198.51.100.7", "198.51.100.24", "2001:db8:1::", "::ffff:192.0.2.1"):
        assert ipaddress.ip_address(address) not in ranges, address
