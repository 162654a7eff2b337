"""Creating from the dashboard in a browser: an app, its domain and a route, and a webhook
endpoint, each refusal the API's own message beside its field; at desktop and at phone width."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack

PHONE = {"width": 390, "height": 844}


def test_an_app_its_domain_and_a_route_are_created_on_pages(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Formwright")
    slug = org["slug"]
    sign_in(page, accounts.user((org, "admin")))
    page.goto(f"/{slug}/apps")
    page.get_by_role("link", name="New app").first.click()
    page.get_by_label("Slug").fill("Not A Slug")
    page.get_by_role("button", name="Create app").click()
    expect(page.locator("#f-name-error")).to_contain_text("Length must be between 1 and 120")
    expect(page.locator("#f-slug-error")).to_be_visible()
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    shoot(page, "form-new-app-refused")
    page.get_by_label("Name").fill("Formwright docs")
    page.get_by_label("Slug").fill("")
    page.get_by_role("button", name="Create app").click()
    expect(page.get_by_role("heading", name="Formwright docs", level=1)).to_be_visible()
    expect(page.locator(".flash")).to_contain_text("is created")

    page.get_by_role("link", name="Add domain").click()
    page.get_by_label("Hostname").fill("not a hostname")
    page.get_by_role("button", name="Add domain").click()
    expect(page.locator("#f-domain-error")).to_be_visible()
    page.get_by_label("Hostname").fill(f"{slug}.example.org")
    page.get_by_role("button", name="Add domain").click()
    expect(page.get_by_text("Publish this TXT record at your DNS provider")).to_be_visible()
    page.get_by_role("button", name=f"Verify {slug}.example.org").click()
    expect(page.locator(".domain .alert")).to_contain_text("Not verified.")
    expect(page.locator(".domain .alert")).not_to_contain_text("NO_RECORD")
    shoot(page, "form-app-domain-not-verified")
    page.set_viewport_size(PHONE)
    shoot(page, "form-app-domain-not-verified-phone")

    page.set_viewport_size({"width": 1280, "height": 800})
    page.get_by_role("link", name="Routes", exact=True).click()
    page.get_by_role("link", name="New route").click()
    page.get_by_label("Path").fill("/with space")
    page.get_by_label("Target page id").fill("3f2b8c1e-5a7d-4e9b-8c21-6d0f4a9e7b35")
    page.get_by_role("button", name="Create route").click()
    expect(page.locator("#f-path-error")).to_be_visible()
    shoot(page, "form-new-route-refused")


def test_a_webhook_endpoint_is_created_and_its_secret_shown_once(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Hookfield")
    slug = org["slug"]
    sign_in(page, accounts.user((org, "admin")))
    page.goto(f"/{slug}/settings/webhooks")
    page.get_by_role("link", name="New endpoint").click()
    page.get_by_label("Endpoint URL").fill("https://example.com/hooks")
    page.locator('input[name="events"][value="*"]').uncheck()
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.locator("#f-events-error")).to_be_visible()
    shoot(page, "form-new-webhook-refused")
    page.locator('input[name="events"][value="app.created"]').check()
    page.get_by_role("button", name="Create endpoint").click()
    secret = page.locator("#new-webhook-secret")
    expect(secret).to_have_value(re.compile(r"^whsec_"))
    page.get_by_role("button", name="Send test event").click()
    expect(page.locator("tbody")).to_contain_text("ping")
    retry = page.get_by_role("button", name="Retry").first
    for _ in range(30):  # offered once the delivery's first attempt is recorded
        if retry.is_visible():
            break
        page.wait_for_timeout(1000)
        page.reload()
    expect(retry).to_be_visible()
    shoot(page, "form-webhook-endpoint")
    page.set_viewport_size(PHONE)
    shoot(page, "form-webhook-endpoint-phone")
    page.reload()
    expect(page.locator("#new-webhook-secret")).to_have_count(0)
