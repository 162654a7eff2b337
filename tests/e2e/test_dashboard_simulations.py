"""The simulations pages in a real browser against the gunicorn processes: a task and an
environment made with the forms, "Run now", the run page with its verdicts and steps, and the
pass-rate chart, at desktop and at a phone's width, with a screenshot of each."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from tests import conftest
from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack
from tests.e2e.domains import verify
from tests.e2e.test_dashboard_pages import NARROW, call, sticking_out

PRICING = "# Pricing\n\n## Team\n\nThe Team plan costs $49 per month and adds five editors.\n"


def _published_app(live_stack: LiveStack, database: conftest.TestDatabase, key: str, product_id: str) -> dict:
    pages = [
        {
            "slug": "pricing",
            "title": "Pricing",
            "status": "published",
            "content": PRICING,
            "description": "Plans and prices",
        },
        {"slug": "about", "title": "About", "status": "published", "content": "# About\n\nDocs."},
    ]
    created = call(live_stack, key, "POST", "/api/v1/site/pages", {"productId": product_id, "pages": pages})
    app = call(live_stack, key, "POST", "/api/v1/apps", {"name": "Help center"})
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/resources", {"resourceId": product_id})
    hostname = f"help-{uuid.uuid4().hex[:8]}.example.com"
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/domains", {"domain": hostname, "type": "web"})
    verify(database, hostname)  # only a verified domain is the App's address
    routes = [
        {"path": f"/{item['slug']}", "targetId": item["id"], "targetType": "product_document"}
        for item in created["created"]
    ]
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/routes/batch", {"routes": routes})
    return app


def test_a_task_made_in_the_forms_runs_and_its_page_explains_the_verdict(
    page: Page, accounts: Accounts, live_stack: LiveStack, database: conftest.TestDatabase
):
    org = accounts.organization("Fabrikam")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    product = accounts.admin("create-product", "--org", slug, "--name", "Help", "--slug", "help")
    _published_app(live_stack, database, key, product["id"])
    sign_in(page, accounts.user((org, "owner"), name="Sam Sims"))

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Simulations").click()
    expect(page.get_by_role("heading", name="Agent simulations")).to_be_visible()
    expect(page.get_by_text("No tasks yet")).to_be_visible()
    page.get_by_label("Name", exact=True).first.fill("Team price")
    page.get_by_label("Category").fill("pricing")
    page.get_by_label("Goal").fill("How much does the Team plan cost?")
    page.get_by_label("Success criteria").fill("must_include: $49\npage_reached: /pricing\n? url_visited: /llms.txt")
    page.get_by_role("button", name="Save task").click()
    expect(page.get_by_text("The task Team price is saved")).to_be_visible()
    page.locator("#environment-form").get_by_role("button", name="Save environment").click()
    expect(page.get_by_text("The environment BM25 reader is saved")).to_be_visible()
    shoot(page, "simulations-forms")

    page.get_by_role("button", name="Run now").click()
    expect(page.get_by_text("1 run queued")).to_be_visible()
    for _ in range(60):
        if page.locator(".badge-completed").count():
            break
        page.wait_for_timeout(500)
        page.reload()
    expect(page.get_by_role("heading", name="Why it passed")).to_be_visible()
    expect(page.get_by_text("$49 per month").first).to_be_visible()
    verdicts = page.locator("section[aria-labelledby=verdicts-heading] tbody tr")
    expect(verdicts).to_have_count(3)
    expect(page.get_by_role("heading", name="Steps")).to_be_visible()
    expect(page.get_by_text("no robots.txt: every agent is allowed")).to_be_visible()
    shoot(page, "simulation-run")

    page.goto(f"/{slug}/simulations")
    expect(page.locator("#pass-rate.chart-drawn")).to_be_visible()  # drawn by the chart component
    expect(page.get_by_role("img", name="Completed runs that passed, % a day: 1 of 1 overall")).to_be_visible()
    expect(page.get_by_text("100% (1/1)")).to_be_visible()
    shoot(page, "simulations")
    page.set_viewport_size(NARROW)
    assert sticking_out(page) == []
    shoot(page, "simulations-narrow")
