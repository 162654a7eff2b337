"""A product's prompts, competitors and AI answers in a real browser against the gunicorn
processes, at desktop and at a phone's width, with a screenshot of each page."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack
from tests.e2e.test_dashboard_pages import NARROW, call, sticking_out

ANSWER = (
    "The strongest options for a startup:\n\n1. **Globex Analytics**: deep, but pricey.\n"
    "2. **Contoso Insights**: fast to set up and easy to love.\n3. Initech, for enterprises.\n\n"
    "Pricing: https://contoso.example/pricing and https://globex.example/plans"
)


def test_prompts_competitors_and_answers(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Contoso")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    product = accounts.admin("create-product", "--org", slug, "--name", "Contoso Insights", "--slug", "insights")
    call(live_stack, key, "PATCH", f"/api/v1/products/{product['id']}",
         {"brand": {"aliases": ["Contoso"], "domains": ["contoso.example"]}})  # fmt: skip
    for name, domain in (("Globex Analytics", "globex.example"), ("Initech", "initech.example")):
        call(
            live_stack,
            key,
            "POST",
            f"/api/v1/products/{product['id']}/competitors",
            {"name": name, "domains": [domain]},
        )
    answer = call(live_stack, key, "POST", "/api/v1/answers", {
        "id": "collector-1", "productId": product["id"], "prompt": "Best analytics tool for a startup?",
        "engine": "perplexity-sonar", "model": "sonar", "text": ANSWER, "answeredAt": "2026-11-27T10:00:00Z",
        "citations": [{"url": "https://contoso.example/pricing", "title": "Pricing"}],
    })  # fmt: skip
    deadline = time.monotonic() + 20
    while call(live_stack, key, "GET", f"/api/v1/answers/{answer['id']}")["analysis"] is None:
        assert time.monotonic() < deadline, "the answer was not analysed"
        time.sleep(0.2)
    sign_in(page, accounts.user((org, "owner"), name="Olivia Owner"))
    base = f"/{slug}/products/insights"

    page.goto(base + "/prompts")
    expect(page.get_by_text("No prompts yet")).to_be_visible()
    page.get_by_label("Prompt", exact=True).fill("Best analytics tool for a startup?")
    page.get_by_label("Cadence").select_option("weekly")
    page.get_by_role("button", name="Track prompt").click()
    expect(page.get_by_role("status")).to_have_text("Prompt tracked.")
    expect(page.get_by_role("cell", name="Best analytics tool for a startup?")).to_be_visible()
    expect(page.get_by_role("button", name="Run now")).to_be_disabled()  # no engine key in this stack
    shoot(page, "prompts")

    page.get_by_role("link", name="Competitors").click()
    page.get_by_label("Name").fill("Fabrikam")
    page.get_by_label("Domains").fill("fabrikam.example")
    page.get_by_role("button", name="Add competitor").click()
    expect(page.get_by_role("status")).to_have_text("Fabrikam added.")
    expect(page.get_by_text("set version 3")).to_be_visible()
    shoot(page, "competitors")

    page.get_by_role("link", name="AI answers").click()
    expect(page.get_by_text("#2")).to_be_visible()
    shoot(page, "answers")
    page.get_by_role("link", name="Best analytics tool for a startup?").click()
    expect(page.locator(".answer-text mark.mention-brand")).to_have_text("Contoso Insights")
    expect(page.locator(".answer-text mark.mention-competitor")).to_have_text(["Globex Analytics", "Initech"])
    expect(page.get_by_role("cell", name="owned")).to_be_visible()
    shoot(page, "answer")

    page.set_viewport_size(NARROW)
    for path, name in (("/prompts", "prompts"), ("/competitors", "competitors"), ("/answers", "answers"),
                       (f"/answers/{answer['id']}", "answer")):  # fmt: skip
        page.goto(base + path)
        assert sticking_out(page) == [], path
        shoot(page, f"{name}-phone")
