"""The organization's pages in a real browser against the gunicorn processes: every section as a
person uses it, at desktop and at a phone's width, with a screenshot of each page."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from playwright.sync_api import Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack, record_runs

NARROW = {"width": 390, "height": 844}
MEMBERS = 'section[aria-labelledby="members-heading"]'
# Each member's row as shown: the text of each cell on screen, a role's select as the role chosen.
SHOWN_CELLS = """table => [...table.tBodies[0].rows].map(row => [...row.cells]
    .filter(cell => cell.checkVisibility())
    .map(cell => cell.querySelector("select")?.selectedOptions[0].text ?? cell.innerText.trim()))"""
MEMBER_SINCE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")


def call(stack: LiveStack, key: str, method: str, path: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        stack.gateway + path, data=data, method=method, headers={"x-api-key": key, "Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())["data"]


def sticking_out(page: Page) -> list[str]:
    """The elements reaching past the window's right edge (none: no sideways scrolling of the page),
    once the page has drawn two frames at its size: a chart redraws to a new width in the frame after
    it changed (its ResizeObserver), as a phone turned sideways sees it."""
    found: list[str] = page.evaluate(
        """async () => {
             await new Promise(drawn => requestAnimationFrame(() => requestAnimationFrame(drawn)));
             return document.documentElement.scrollWidth <= window.innerWidth ? []
             : [...document.querySelectorAll("body *")]
             .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest(".table-scroll, .nav"))
             .map(e => e.tagName.toLowerCase() + "." + e.className).concat(["the page scrolls sideways"]);
           }"""
    )
    return found


def shown_members(page: Page) -> list[list[str]]:
    rows: list[list[str]] = page.locator(MEMBERS + " table").evaluate(SHOWN_CELLS)
    return rows


def without_member_since(rows: list[list[str]], column: int = 3) -> list[list[str]]:
    """The rows less their "Member since" cell, once it is checked to be a time to the minute."""
    assert all(MEMBER_SINCE.fullmatch(row[column]) for row in rows), rows
    return [row[:column] + row[column + 1 :] for row in rows]


def test_the_organizations_pages(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Contoso")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    product = accounts.admin("create-product", "--org", slug, "--name", "Docs site", "--slug", "docs")
    pages = [
        {
            "slug": f"guides/guide-{index}",
            "title": f"Guide {index}",
            "status": "published",
            "content": f"# Guide {index}\n\nStep **{index}**.",
        }
        for index in range(1, 31)
    ]
    created = call(live_stack, key, "POST", "/api/v1/site/pages", {"productId": product["id"], "pages": pages[:25]})
    call(live_stack, key, "POST", "/api/v1/site/pages", {"productId": product["id"], "pages": pages[25:]})
    call(
        live_stack,
        key,
        "POST",
        f"/api/v1/products/{product['id']}/personas",
        {"name": "Evaluator", "description": "Compares vendors before buying."},
    )
    app = call(live_stack, key, "POST", "/api/v1/apps", {"name": "Help center"})
    call(live_stack, key, "POST", f"/api/v1/apps/{app['id']}/resources", {"resourceId": product["id"]})
    with ThreadPoolExecutor(1) as thread:  # Playwright runs an event loop in this one
        thread.submit(asyncio.run, record_runs(replace(live_stack, organization_id=org["id"]), 3)).result()
    owner = accounts.user((org, "owner"), name="Olivia Owner")
    admin = accounts.user((org, "admin"), name="Ada Admin")
    nameless = accounts.user((org, "member"), name="")

    sign_in(page, owner)
    assert page.url.endswith(f"/{slug}")
    expect(page.get_by_role("heading", name="Contoso")).to_be_visible()
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="Overview")).to_have_attribute(
        "aria-current", "page"
    )
    shoot(page, "org-landing")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Products").click()
    expect(page.get_by_role("heading", name="Products")).to_be_visible()
    shoot(page, "products")
    page.get_by_role("link", name="Docs site").first.click()
    expect(page.get_by_text("30 in total")).to_be_visible()
    expect(page.get_by_text("page 1 of 2")).to_be_visible()
    shoot(page, "site-pages")
    page.get_by_label("Search").fill("guide 1")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("11 pages · page 1 of 1")).to_be_visible()  # Guide 1 and Guide 10 to 19
    shoot(page, "site-pages-search")

    document_id = created["created"][0]["id"]
    page.goto(f"/{slug}/products/docs/pages/{document_id}")
    expect(page.locator(".preview strong")).to_have_text("1")
    shoot(page, "document")
    page.get_by_role("link", name="Edit", exact=True).click()
    page.get_by_label("Markdown").fill("# Guide one\n\n- first\n- second")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator(".preview li")).to_have_count(2)
    shoot(page, "document-edit-preview")
    page.get_by_label("Status").select_option("draft")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Saved.")
    stored = call(live_stack, key, "GET", f"/api/v1/content/{document_id}")
    assert (stored["content"], stored["status"]) == ("# Guide one\n\n- first\n- second", "draft")

    page.goto(f"/{slug}/products/docs/personas")
    expect(page.get_by_role("heading", name="Evaluator")).to_be_visible()
    shoot(page, "personas")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Apps").click()
    page.get_by_role("link", name="Help center").click()
    expect(page.get_by_role("heading", name="Resources")).to_be_visible()
    shoot(page, "app")
    page.get_by_role("link", name="Import routes").click()
    rows = "\n".join(f"/help/guide-{index},{item['id']}" for index, item in enumerate(created["created"][1:4], 2))
    page.get_by_label("CSV", exact=True).fill("path,targetId\n" + rows)
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_text("3 to create")).to_be_visible()
    shoot(page, "routes-import-preview")
    page.get_by_role("button", name="Create 3 routes").click()
    expect(page.get_by_role("status")).to_have_text("3 routes created.")
    expect(page.get_by_role("cell", name="/help/guide-2", exact=True)).to_be_visible()
    shoot(page, "routes")
    page.get_by_role("link", name="Edit /help/guide-2").click()
    page.get_by_label("Path").fill("/help/start")
    page.get_by_role("button", name="Save route").click()
    expect(page.get_by_role("cell", name="/help/start", exact=True)).to_be_visible()
    page.get_by_role("link", name="Route candidates").click()
    expect(page.get_by_text("26 in total")).to_be_visible()  # 29 published, 3 routed
    shoot(page, "route-candidates")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Runs").click()
    expect(page.get_by_text("3 runs · page 1 of 1")).to_be_visible()
    shoot(page, "runs")
    page.get_by_label("Outcome").select_option("true")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_text("2 runs · page 1 of 1")).to_be_visible()
    page.get_by_role("link", name="Checkout").first.click()
    expect(page.get_by_role("heading", name="Result")).to_be_visible()
    shoot(page, "run")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Settings").click()
    colleague = accounts.user(name="Carl Colleague")
    page.get_by_label("Email").fill(colleague.email)
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("is invited as viewer")
    shoot(page, "members")
    people = [[owner.email, "Olivia Owner you", "owner"], [admin.email, "Ada Admin", "admin"]]
    members = sorted([*people, [nameless.email, "—", "member"]])
    assert without_member_since(shown_members(page)) == [[name, email, role, "Remove"] for email, name, role in members]
    page.get_by_role("link", name="Security").click()
    expect(page.get_by_text("this browser")).to_be_visible()
    shoot(page, "security")

    page.set_viewport_size(NARROW)
    for path, name in (
        ("", "landing"),
        ("/products/docs", "site-pages"),
        (f"/apps/{app['id']}/routes", "routes"),
        ("/runs", "runs"),
        ("/settings/members", "members"),
        ("/settings/api-keys", "api-keys"),
        ("/settings/security", "security"),
    ):
        page.goto(f"/{slug}{path}")
        assert sticking_out(page) == [], f"{path or '/'} is wider than a phone"
        shoot(page, f"narrow-{name}")
    page.goto(f"/{slug}/settings/members")
    # On a phone each member is a few lines, every cell in view: nothing to scroll sideways to.
    assert shown_members(page) == [[name, email, role, "Remove"] for email, name, role in members]
    assert page.locator(MEMBERS + " .table-scroll").evaluate("box => box.scrollWidth <= box.clientWidth")


def test_a_viewer_sees_no_button_it_cannot_use(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Fabrikam")
    key = accounts.admin("create-key", "--org", org["slug"], "--name", "setup", "--scopes", "all")["key"]
    product = accounts.admin("create-product", "--org", org["slug"], "--name", "Shop", "--slug", "shop")
    call(
        live_stack,
        key,
        "POST",
        "/api/v1/site/pages",
        {"productId": product["id"], "pages": [{"slug": "returns", "title": "Returns"}]},
    )
    viewer = accounts.user((org, "viewer"))
    sign_in(page, viewer)
    page.goto(f"/{org['slug']}/products/shop")
    expect(page.get_by_role("link", name="Returns")).to_be_visible()
    expect(page.get_by_role("link", name="Edit Returns")).to_have_count(0)
    page.get_by_role("link", name="Returns").click()
    expect(page.get_by_role("link", name="Edit", exact=True)).to_have_count(0)
    page.goto(f"/{org['slug']}/settings/members")
    expect(page.get_by_role("button", name="Add member")).to_have_count(0)
    expect(page.get_by_role("button", name="Remove")).to_have_count(0)
    assert without_member_since(shown_members(page)) == [["Test User you", viewer.email, "viewer"]]
    shoot(page, "members-viewer")
    response = page.goto(f"/{org['slug']}/products/shop/pages/{'0' * 8}-0000-4000-8000-{'0' * 12}")
    assert response is not None and response.status == 404


def test_an_app_is_managed_routes_domains_llms_txt_delete_and_restore(
    page: Page, accounts: Accounts, live_stack: LiveStack
):
    org = accounts.organization("Northwind")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    product = accounts.admin("create-product", "--org", slug, "--name", "Manual", "--slug", "manual")
    pages = [
        {"slug": f"guide-{index}", "title": f"Guide {index}", "status": "published", "content": f"# Guide {index}"}
        for index in range(1, 4)
    ]
    created = call(live_stack, key, "POST", "/api/v1/site/pages", {"productId": product["id"], "pages": pages})
    app = call(live_stack, key, "POST", "/api/v1/apps", {"name": "Manual site"})
    base = f"/api/v1/apps/{app['id']}"
    call(live_stack, key, "POST", f"{base}/resources", {"resourceId": product["id"]})
    routes = [
        {"path": f"/manual/guide-{index}", "targetId": item["id"], "targetType": "product_document"}
        for index, item in enumerate(created["created"], 1)
    ]
    call(live_stack, key, "POST", f"{base}/routes/batch", {"routes": routes})
    hostname = f"{slug}.example.com"
    domain = call(live_stack, key, "POST", f"{base}/domains", {"domain": hostname})
    sign_in(page, accounts.user((org, "admin")))

    page.goto(f"/{slug}/apps/{app['id']}")
    expect(page.get_by_text("not verified")).to_be_visible()
    expect(page.get_by_label("Value")).to_have_value(domain["verification"][0]["value"])
    expect(page.get_by_text("No llms.txt yet: the app has no web domain that is verified")).to_be_visible()
    shoot(page, "app-domains-llms")
    page.get_by_role("button", name=f"Verify {hostname}").click()
    expect(page.locator(".flash")).to_contain_text("is not verified yet")
    expect(page.locator(".domain .alert")).to_contain_text("Not verified.")
    shoot(page, "app-domain-check-failed")

    page.get_by_role("link", name="Routes", exact=True).click()
    page.get_by_label("Path starts with").fill("/manual/guide-2")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("cell", name="/manual/guide-1", exact=True)).to_have_count(0)
    page.get_by_role("link", name="Delete /manual/guide-2").click()
    expect(page.get_by_role("heading", name="Delete this route?")).to_be_visible()
    shoot(page, "route-delete-confirm")
    page.get_by_role("button", name="Delete route").click()
    expect(page.get_by_role("status")).to_have_text("The route /manual/guide-2 is deleted.")
    assert [route["path"] for route in call(live_stack, key, "GET", f"{base}/routes")["routes"]] == [
        "/manual/guide-1",
        "/manual/guide-3",
    ]
    shoot(page, "routes-after-delete")

    page.set_viewport_size(NARROW)
    for path, name in ((f"/apps/{app['id']}", "app"), (f"/apps/{app['id']}/routes", "app-routes")):
        page.goto(f"/{slug}{path}")
        assert sticking_out(page) == [], f"{path} is wider than a phone"
        shoot(page, f"narrow-{name}")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.goto(f"/{slug}/apps/{app['id']}")
    page.get_by_role("link", name="Delete app…").click()
    page.get_by_role("button", name="Delete app").click()
    expect(page.get_by_role("status")).to_have_text("The app Manual site is deleted.")
    expect(page.locator(".cards")).to_have_count(0)  # no live app left
    expect(page.get_by_role("region", name="Recently deleted")).to_contain_text("Manual site")
    shoot(page, "app-deleted-restore")
    page.goto(f"/{slug}/apps/{app['id']}")  # its address says what happened
    expect(page.get_by_role("heading", name="Manual site was deleted")).to_be_visible()
    shoot(page, "app-deleted-address")
    page.get_by_role("button", name="Restore app").click()
    expect(page.locator(".flash")).to_have_text("The app Manual site is restored.")
    expect(page.get_by_role("heading", name="Manual site")).to_be_visible()
    assert call(live_stack, key, "GET", base)["name"] == "Manual site"


def test_the_audit_trail_and_webhooks_under_settings(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Northwind")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    hook = {"url": "https://hooks.example.com/northwind", "events": ["*"], "description": "Ops alerts"}
    endpoint = call(live_stack, key, "POST", "/api/v1/webhook-endpoints", hook)
    call(live_stack, key, "POST", f"/api/v1/webhook-endpoints/{endpoint['id']}/test")
    call(live_stack, key, "PATCH", f"/api/v1/webhook-endpoints/{endpoint['id']}", {"description": "Ops pager"})
    sign_in(page, accounts.user((org, "viewer"), name="Vera Viewer"))

    page.goto(f"/{slug}/settings/members")
    page.get_by_role("navigation", name="Settings").get_by_role("link", name="Audit trail").click()
    expect(page.get_by_role("heading", name="Audit trail")).to_be_visible()
    # The trail is written a moment after the request: reload until the change shows.
    for _ in range(20):
        if page.get_by_role("cell", name="webhook_endpoint.updated").count():
            break
        page.wait_for_timeout(500)
        page.reload()
    expect(page.get_by_role("cell").filter(has_text="webhook_endpoint.updated")).to_be_visible()
    expect(page.get_by_role("cell").filter(has_text="webhook_endpoint.created")).to_be_visible()
    shoot(page, "audit")
    page.get_by_label("Action").fill("webhook_endpoint.updated")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("cell").filter(has_text="webhook_endpoint.created")).to_have_count(0)
    expect(page.get_by_role("cell").filter(has_text="webhook_endpoint.updated")).to_be_visible()
    expect(page.get_by_role("link", name="Older")).to_have_attribute("aria-disabled", "true")
    shoot(page, "audit-filtered")

    page.get_by_role("navigation", name="Settings").get_by_role("link", name="Webhooks").click()
    expect(page.get_by_role("heading", name="https://hooks.example.com/northwind")).to_be_visible()
    expect(page.get_by_text("Ops pager")).to_be_visible()
    expect(page.get_by_role("cell", name="ping")).to_be_visible()
    shoot(page, "webhooks")

    page.set_viewport_size(NARROW)
    for path, name in (("/settings/audit", "audit"), ("/settings/webhooks", "webhooks")):
        page.goto(f"/{slug}{path}")
        assert sticking_out(page) == [], f"{path} is wider than a phone"
        shoot(page, f"narrow-{name}")
