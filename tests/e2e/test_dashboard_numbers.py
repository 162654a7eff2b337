"""A product's Visibility section in a real browser: share of voice and visibility over time drawn
by the chart component with its table of the same numbers, this period against the last, per
engine; each prompt's numbers, sortable; the most cited sources, owned ones first, an owned page
linked to its App route; AI traffic on the same chart; and the empty state, at desktop and at a
phone's width."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta

from playwright.sync_api import Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack
from tests.e2e.test_dashboard_pages import NARROW, call, sticking_out

TEXTS = (
    "Contoso Insights leads; Globex Analytics follows.",
    "Globex Analytics is the pick.",
    "1. Contoso Insights\n2. Globex Analytics",
    "Nothing we track here.",
)


def test_the_visibility_section(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Litware")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    product = accounts.admin("create-product", "--org", slug, "--name", "Contoso Insights", "--slug", "insights")
    host = f"docs-{uuid.uuid4().hex[:8]}.example.com"
    call(live_stack, key, "PATCH", f"/api/v1/products/{product['id']}", {"brand": {"domains": [host]}})
    call(
        live_stack,
        key,
        "POST",
        f"/api/v1/products/{product['id']}/competitors",
        {"name": "Globex Analytics", "domains": ["globex.example"]},
    )
    created = call(
        live_stack,
        key,
        "POST",
        "/api/v1/site/pages",
        {
            "productId": product["id"],
            "pages": [{"slug": "pricing", "title": "Pricing", "status": "published", "content": "# Pricing"}],
        },
    )
    app = call(live_stack, key, "POST", "/api/v1/apps", {"name": "Docs site"})
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/resources", {"resourceId": product["id"]})
    call(
        live_stack,
        key,
        "POST",
        f"/api/v1/apps/{app['id']}/routes/batch",
        {"routes": [{"path": "/pricing", "targetId": created["created"][0]["id"], "targetType": "product_document"}]},
    )
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/domains", {"domain": host})
    prompt = call(
        live_stack,
        key,
        "POST",
        f"/api/v1/products/{product['id']}/prompts",
        {"text": "Best analytics tool for a startup?"},
    )
    now = datetime.now(UTC)
    ids = []
    for day in range(12):
        for index, text in enumerate(TEXTS):
            cited = [{"url": f"https://{host}/pricing"}] if index == 0 else [{"url": "https://globex.example/plans"}]
            ids.append(
                call(
                    live_stack,
                    key,
                    "POST",
                    "/api/v1/answers",
                    {
                        "id": f"collector-{day}-{index}",
                        "productId": product["id"],
                        "text": text,
                        "promptId": prompt["id"] if index < 2 else None,
                        "prompt": None if index < 2 else "Other question?",
                        "engine": ("perplexity-sonar", "openai-search")[(day + index) % 2],
                        "model": "m",
                        "answeredAt": (now - timedelta(days=day, hours=index)).isoformat(),
                        "citations": cited,
                    },
                )["id"]
            )
    deadline = time.monotonic() + 60
    while call(live_stack, key, "GET", f"/api/v1/answers/{ids[-1]}")["analysis"] is None:
        assert time.monotonic() < deadline, "the answers were not analysed"
        time.sleep(0.3)
    sign_in(page, accounts.user((org, "viewer"), name="Vera Viewer"))
    base = f"/{slug}/products/insights"

    page.goto(base)
    page.get_by_role("link", name="Visibility", exact=True).click()
    expect(page.get_by_role("heading", name="This period against the last")).to_be_visible()
    expect(page.locator("#share-of-voice.chart-drawn canvas")).to_be_visible()
    expect(page.locator("#visibility.chart-drawn .u-legend")).to_contain_text("Globex Analytics")
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Contoso Insights yours"))
    expect(row).to_contain_text("(24/48)")
    page.locator("#share-of-voice summary").click()
    expect(page.locator("#share-of-voice .chart-table table")).to_contain_text("Contoso Insights")
    expect(page.get_by_role("cell", name="perplexity-sonar").first).to_be_visible()
    shoot(page, "visibility-overview")

    page.get_by_role("navigation", name="Visibility").get_by_role("link", name="Prompts").click()
    expect(page.get_by_role("cell", name="Best analytics tool for a startup?")).to_be_visible()
    expect(page.get_by_role("cell", name="Prompts not tracked")).to_be_visible()
    page.get_by_role("link", name="Average position").click()
    expect(page.locator("th[aria-sort]")).to_have_text("Average position ▾")
    shoot(page, "visibility-prompts")

    page.get_by_role("navigation", name="Visibility").get_by_role("link", name="Sources").click()
    domains = page.locator("#domains-heading ~ * tbody tr, section[aria-labelledby=domains-heading] tbody tr")
    expect(domains.first).to_contain_text("yours")
    link = page.get_by_role("link", name="Edit its route")
    assert (link.get_attribute("href") or "").startswith(f"/{slug}/apps/{app['id']}/routes/")
    shoot(page, "visibility-sources")

    page.get_by_role("navigation", name="Visibility").get_by_role("link", name="AI traffic").click()
    expect(page.get_by_text("No AI agent has visited your Apps in this period.")).to_be_visible()
    expect(page.get_by_role("link", name="Docs site")).to_be_visible()
    shoot(page, "visibility-traffic")

    page.set_viewport_size(NARROW)
    for path, name in (("", "overview"), ("/prompts", "prompts"), ("/sources", "sources"), ("/traffic", "traffic")):
        page.goto(f"{base}/visibility{path}")
        assert sticking_out(page) == [], path
        shoot(page, f"visibility-{name}-phone")


def test_a_product_without_answers_says_what_to_do(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Tailspin")
    accounts.admin("create-product", "--org", org["slug"], "--name", "Toys", "--slug", "toys")
    sign_in(page, accounts.user((org, "viewer")))
    page.goto(f"/{org['slug']}/products/toys/visibility")
    expect(page.get_by_text("No analysed answer in this period yet.")).to_be_visible()
    expect(page.get_by_role("link", name="Track prompts and run them")).to_have_attribute(
        "href", f"/{org['slug']}/products/toys/prompts"
    )
    shoot(page, "visibility-empty")
