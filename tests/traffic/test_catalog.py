"""The agent catalog: its snapshot's build from the maintained package, and how a request is told apart."""

from __future__ import annotations

from datetime import UTC, datetime

from aiohttp import ClientSession, web

from services.traffic.catalog import Catalog
from services.traffic.refresh import build, fetch_ranges, package_entries

CATALOG = Catalog.load()


def test_agents_are_told_by_their_user_agent():
    cases = {
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)":
            "gptbot",
        "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)": "claudebot",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot":
            "chatgpt-user",
        "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)": "perplexitybot",
        "CCBot/2.0 (https://commoncrawl.org/faq/)": "ccbot",
    }  # fmt: skip
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
        "training", "search", "user_fetch", "agent", "dataset", "other"}  # fmt: skip


async def test_published_ranges_are_fetched_complete(aiohttp_server):
    async def ranges(_: web.Request) -> web.Response:
        return web.json_response({"prefixes": [{"ipv4Prefix": "192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}]})

    app = web.Application()
    app.router.add_get("/gptbot.json", ranges)
    server = await aiohttp_server(app)
    at = datetime(2026, 11, 28, tzinfo=UTC)
    async with ClientSession() as session:
        fetched = await fetch_ranges(session, str(server.make_url("/gptbot.json")), at)
    assert fetched == {"url": str(server.make_url("/gptbot.json")), "prefixes": ["192.0.2.0/24", "2001:db8::/32"],
                       "complete": True, "fetchedAt": at.isoformat()}  # fmt: skip
