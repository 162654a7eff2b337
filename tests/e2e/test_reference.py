"""The API reference in a real browser: /docs drawn from the server with nothing from another
site, at desktop and mobile widths; the console (Swagger UI) on the same document."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from gateway.edge.openapi import TITLE
from tests.e2e.browser import shoot
from tests.e2e.conftest import LiveStack

RUNS = "/api/v1/agent-simulation/runs"


def test_the_reference_page_lists_the_operations_and_links_to_each(page: Page, live_stack: LiveStack):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("/docs")
    expect(page.get_by_role("heading", name="API reference")).to_be_visible()
    runs = page.locator("#simulation_runs_list")
    expect(runs.locator("code.path")).to_have_text(RUNS)
    expect(runs.locator("td > code", has_text=re.compile("^status$"))).to_be_visible()
    expect(runs).to_contain_text("queued")
    page.get_by_role("navigation", name="Operations").get_by_role("link", name="Agent simulation").click()
    expect(page).to_have_url(f"{live_stack.gateway}/docs#tag-agent-simulation")
    runs.get_by_text("Answer example (200)").click()
    expect(runs.locator("pre").first).to_contain_text('"overallScore"')
    shoot(page, "api-reference")
    assert all(url.startswith(live_stack.gateway) for url in requested), requested


def test_the_reference_page_fits_a_phone(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/docs")
    expect(page.locator("#simulation_runs_get")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    shoot(page, "api-reference-mobile")


def test_the_console_renders_the_openapi_document(page: Page, live_stack: LiveStack):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("/docs")
    page.get_by_role("link", name="Try requests in the console").click()
    expect(page.locator(".opblock").first).to_be_visible(timeout=60_000)
    expect(page.locator(".info .title")).to_contain_text(TITLE)
    expect(page.get_by_text(RUNS, exact=True).first).to_be_visible()
    shoot(page, "api-console")
    assert f"{live_stack.gateway}/api/v1/openapi.json" in requested
    assert all(url.startswith(live_stack.gateway) or url.startswith("data:") for url in requested), requested
