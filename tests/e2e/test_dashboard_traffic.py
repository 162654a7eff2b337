"""An App's AI-traffic page in a real browser: the chart of visits by category drawn by the chart
component, top agents and paths, verified against claimed; at desktop and at a phone's width."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

from playwright.sync_api import Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack
from tests.e2e.test_dashboard_pages import NARROW, call, sticking_out

# Each from an address of its operator's published list (services/traffic/data/agents.json): verified.
AGENTS = {
    "gptbot": (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        "20.171.206.40",
    ),
    "oai-searchbot": ("Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)", "51.8.102.40"),
    "chatgpt-user": (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0",
        "23.98.142.180",
    ),
    "ccbot": ("CCBot/2.0 (https://commoncrawl.org/faq/)", "18.97.14.84"),
}


def events(host: str) -> list[dict]:
    now = datetime.now(UTC)
    found = []
    for day in range(6):
        for index, (agent, (user_agent, address)) in enumerate(AGENTS.items()):
            for visit in range((day + index) % 4 + 1):
                found.append(
                    {
                        "id": str(uuid.uuid4()),
                        "occurredAt": (now - timedelta(days=day, minutes=visit * 7)).isoformat(),
                        "host": host,
                        "path": f"/docs/{agent}-{visit % 3}.md",
                        "method": "GET",
                        "status": 404 if visit == 3 else 200,
                        "userAgent": user_agent,
                        "ip": address,
                        "bytes": 900,
                    }
                )
    return found


def test_an_apps_ai_traffic_page(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Fabrikam")
    key = accounts.admin("create-key", "--org", org["slug"], "--name", "setup", "--scopes", "all")["key"]
    app = call(live_stack, key, "POST", "/api/v1/apps", {"name": "Docs portal"})
    host = f"docs-{uuid.uuid4().hex[:8]}.example.com"
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/domains", {"domain": host})
    sent = events(host)
    answer = call(live_stack, key, "POST", "/api/v1/analytics/events", sent)
    assert (answer["accepted"], answer["rejected"]) == (len(sent), [])
    viewer = accounts.user((org, "viewer"), name="Vera Viewer")

    sign_in(page, viewer)
    page.goto(f"/{org['slug']}/apps/{app['id']}")
    page.get_by_role("navigation", name="Docs portal").get_by_role("link", name="AI traffic").click()
    expect(page.get_by_role("heading", name="Visits over time by category")).to_be_visible()
    expect(page.locator("figure.chart-drawn canvas")).to_be_visible()
    expect(page.locator(".stat", has_text="Agent visits").locator(".number")).to_have_text(str(len(sent)))
    legend = page.locator("figure.chart .u-legend")
    for label in ("Training", "Search", "User fetch", "Dataset"):
        expect(legend).to_contain_text(label)
    top_agents = page.locator("section", has=page.get_by_role("heading", name="Top agents"))
    expect(top_agents.locator("tbody tr")).to_have_count(4)
    expect(page.get_by_role("row", name=re.compile(r"^Verified "))).to_contain_text(str(len(sent)))
    shoot(page, "app-ai-traffic")

    page.set_viewport_size(NARROW)
    page.reload()
    expect(page.locator("figure.chart-drawn canvas")).to_be_visible()
    assert sticking_out(page) == []
    shoot(page, "app-ai-traffic-phone")
