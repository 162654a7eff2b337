"""A product's prompts, competitors and AI answers in a real browser against the gunicorn
processes, at desktop and at a phone's width, with a screenshot of each page: the answer with the
brands it names and the pages it cites highlighted, its own page linked to the App route serving it."""

from __future__ import annotations

import time
import uuid
from typing import Any

from playwright.sync_api import Page, expect

from tests import conftest
from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack
from tests.e2e.domains import verify
from tests.e2e.test_dashboard_pages import NARROW, call, sticking_out

ANSWER = (
    "The strongest options for a startup:\n\n1. **Globex Analytics**: deep, but pricey.\n"
    "2. **Contoso Insights**: fast to set up and easy to love.\n3. Initech, for enterprises.\n\n"
    "Pricing: https://{host}/pricing?utm_source=perplexity and https://globex.example/plans."
)


def _routed_pricing(
    live_stack: LiveStack, database: conftest.TestDatabase, key: str, product_id: str
) -> tuple[str, Any, Any]:
    """An App of the product on a verified domain under the brand's, routing /pricing: its hostname,
    the app and the route."""
    created = call(
        live_stack,
        key,
        "POST",
        "/api/v1/site/pages",
        {
            "productId": product_id,
            "pages": [{"slug": "pricing", "title": "Pricing", "status": "published", "content": "# Pricing"}],
        },
    )
    app = call(live_stack, key, "POST", "/api/v1/apps", {"name": "Contoso site"})
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/resources", {"resourceId": product_id})
    host = f"www-{uuid.uuid4().hex[:8]}.contoso.example"
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/domains", {"domain": host, "type": "web"})
    verify(database, host)  # only a verified domain is the App's address
    routes = call(
        live_stack,
        key,
        "POST",
        f"/api/v1/apps/{app['id']}/routes/batch",
        {"routes": [{"path": "/pricing", "targetId": created["created"][0]["id"], "targetType": "product_document"}]},
    )
    return host, app, routes["routes"][0]


def test_prompts_competitors_and_answers(
    page: Page, accounts: Accounts, live_stack: LiveStack, database: conftest.TestDatabase
):
    org = accounts.organization("Contoso")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    product = accounts.admin("create-product", "--org", slug, "--name", "Contoso Insights", "--slug", "insights")
    call(
        live_stack,
        key,
        "PATCH",
        f"/api/v1/products/{product['id']}",
        {"brand": {"aliases": ["Contoso"], "domains": ["contoso.example"]}},
    )
    host, app, route = _routed_pricing(live_stack, database, key, product["id"])
    for name, domain in (("Globex Analytics", "globex.example"), ("Initech", "initech.example")):
        call(
            live_stack,
            key,
            "POST",
            f"/api/v1/products/{product['id']}/competitors",
            {"name": name, "domains": [domain]},
        )
    answer = call(
        live_stack,
        key,
        "POST",
        "/api/v1/answers",
        {
            "id": "collector-1",
            "productId": product["id"],
            "prompt": "Best analytics tool for a startup?",
            "engine": "perplexity-sonar",
            "model": "sonar",
            "text": ANSWER.format(host=host),
            "answeredAt": "2026-11-27T10:00:00Z",
            "citations": [{"url": f"https://{host}/pricing", "title": "Pricing"}],
        },
    )
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
    owned = page.locator(".answer-text a.cited-owned")
    expect(owned).to_have_text(f"https://{host}/pricing?utm_source=perplexity")
    expect(owned).to_have_attribute("href", f"https://{host}/pricing")
    expect(page.locator(".answer-text a.cited-competitor")).to_have_text("https://globex.example/plans")
    route_link = page.get_by_role("link", name="/pricing", exact=True)
    expect(route_link).to_have_attribute("href", f"/{slug}/apps/{app['id']}/routes/{route['id']}/edit")
    shoot(page, "answer")
    route_link.click()
    expect(page.get_by_label("Path")).to_have_value("/pricing")

    page.set_viewport_size(NARROW)
    for path, name in (
        ("/prompts", "prompts"),
        ("/competitors", "competitors"),
        ("/answers", "answers"),
        (f"/answers/{answer['id']}", "answer"),
    ):
        page.goto(base + path)
        assert sticking_out(page) == [], path
        shoot(page, f"{name}-phone")
