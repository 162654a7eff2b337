"""The API reference in a real browser: /docs drawn from the server with nothing from another
site, at desktop and mobile widths; the console (Swagger UI) on the same document."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from gateway.edge.openapi import TITLE
from tests.e2e.browser import shoot
from tests.e2e.conftest import LiveStack

RUNS = "/api/v1/agent-simulation/runs"
# What Swagger UI makes of a subtree of the document, from the whole document and from the part
# the console hands it (reference.js): [whole, part], each as JSON.
RESOLVED_BOTH_WAYS = """async path => {
  const resolveSubtree = SwaggerUIBundle.plugins.SwaggerClient({configs: {}, getConfigs: () => ui.getConfigs()})
    .fn.resolveSubtree;
  const url = document.getElementById("swagger-ui").dataset.url;
  const spec = await (await fetch(url)).json();
  const options = {baseDoc: new URL(url, location.href).href};
  const both = [spec, reachableSubtree(spec, path)].map(each => resolveSubtree(each, path, options));
  return (await Promise.all(both)).map(each => JSON.stringify([each.spec, each.errors]));
}"""


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
    expect(page.locator(".info .title")).to_contain_text(TITLE)
    tag = page.locator("#operations-tag-Agent_simulation")
    expect(tag).to_be_visible()
    expect(page.get_by_text(RUNS, exact=True)).to_have_count(0)  # an operation is drawn once its tag is opened
    # Swagger UI keeps the outline it lists (what it draws of an operation comes from the whole
    # document as the operation is opened): not the schemas, answers and examples of every operation.
    listed = page.evaluate("ui.specSelectors.specJS()")
    assert list(listed["components"]) == ["securitySchemes"] and "webhooks" not in listed
    # The webhook events, sent by the API rather than tried from here, are the reference's to show.
    expect(page.locator("#operations-tag-Webhook_events")).to_have_count(0)
    webhooks = page.get_by_role("link", name="webhook events")
    expect(webhooks).to_have_attribute("href", "/docs#tag-webhook-events")
    assert set(listed["paths"][RUNS]["get"]) == {"tags", "summary", "operationId", "security"}
    shoot(page, "api-console")
    tag.click()
    operation = page.locator("#operations-Agent_simulation-simulation_runs_list")
    expect(operation.get_by_text(RUNS, exact=True)).to_be_visible()
    operation.locator(".opblock-summary-control").click()
    # A console's operation opens ready to send: no "Try it out" to press first.
    expect(operation.get_by_role("button", name="Execute")).to_be_visible()
    expect(operation.get_by_placeholder("status")).to_be_editable()
    # Its errors are references to components/responses, drawn with their own examples.
    expect(operation.locator(".responses-wrapper")).to_contain_text("this credential lacks the scope simulations:read")
    expect(operation.locator(".responses-wrapper")).to_contain_text("RATE_LIMITED")
    shoot(page, "api-console-try-it-out")
    assert f"{live_stack.gateway}/api/v1/openapi.json" in requested
    assert all(url.startswith(live_stack.gateway) or url.startswith("data:") for url in requested), requested
    webhooks.click()
    expect(page.locator("#tag-webhook-events")).to_be_in_viewport()


def test_an_operations_try_it_link_opens_it_in_the_console_ready_to_send(page: Page, live_stack: LiveStack):
    page.goto("/docs")
    runs = page.locator("#simulation_runs_list")
    runs.get_by_role("link", name="Try it").click()
    expect(page).to_have_url(f"{live_stack.gateway}/docs/console#/Agent%20simulation/simulation_runs_list")
    operation = page.locator("#operations-Agent_simulation-simulation_runs_list")
    expect(operation.get_by_role("button", name="Execute")).to_be_visible()
    expect(operation.get_by_placeholder("status")).to_be_editable()
    expect(page.locator(".opblock.is-open")).to_have_count(1)  # that one, no other
    shoot(page, "api-console-linked")
    # The webhook events are sent by the API, not tried: they have no link.
    page.goto("/docs")
    webhooks = page.locator("section[aria-labelledby='tag-webhook-events']")
    expect(webhooks.locator("article").first).to_be_attached()
    expect(webhooks.locator(".try-it")).to_have_count(0)


def test_a_console_without_its_document_says_so_and_points_to_the_reference(page: Page):
    page.route("**/api/v1/openapi.json", lambda route: route.fulfill(status=503, body="{}"))
    page.goto("/docs/console")
    expect(page.locator("#swagger-ui")).to_contain_text(
        "could not load the API's document (it answered 503). The reference does not need it."
    )
    expect(page.get_by_role("link", name="reference", exact=True)).to_have_attribute("href", "/docs")
    shoot(page, "api-console-without-document")


def test_the_console_resolves_an_operation_as_from_the_whole_document(page: Page):
    page.goto("/docs/console")
    expect(page.locator("#operations-tag-Content")).to_be_visible()
    whole, part = page.evaluate(RESOLVED_BOTH_WAYS, ["paths", "/api/v1/content/{id}", "put"])
    assert part == whole
    assert '"$ref"' not in whole and '"lastIndexedAt"' in whole  # the references replaced by their schemas
    assert '"PRECONDITION_FAILED"' in whole  # and by the error answers of components/responses
    assert '"name":"If-Match"' in whole and '"name":"Idempotency-Key"' in whole  # and components/parameters
    page.locator("#operations-tag-Content").click()
    update = page.locator("#operations-Content-content_update")
    update.locator(".opblock-summary-control").click()
    for header in ("If-Match", "Idempotency-Key"):
        expect(update.locator(".parameter__name", has_text=header)).to_be_visible()
    shoot(page, "api-console-header-parameters")
