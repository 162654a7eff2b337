"""The dashboard's route import names each row the API refuses by its row in the CSV, as the
command line does, instead of one "validation failed"."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack
from tests.e2e.test_dashboard_pages import call


def test_a_csv_with_bad_rows_is_answered_row_by_row(page: Page, accounts: Accounts, live_stack: LiveStack):
    org = accounts.organization("Rowland")
    slug = org["slug"]
    key = accounts.admin("create-key", "--org", slug, "--name", "setup", "--scopes", "all")["key"]
    app = call(live_stack, key, "POST", "/api/v1/apps", {"name": "Rows site"})
    target = "3f2b8c1e-5a7d-4e9b-8c21-6d0f4a9e7b35"
    sign_in(page, accounts.user((org, "admin")))
    page.goto(f"/{slug}/apps/{app['id']}/import")
    csv = f"path,targetId\n/fine,{target}\n/pricing?plan=pro,{target}\n/also-fine,{target}\n/bad path,{target}\n"
    page.get_by_role("textbox", name="CSV").fill(csv)
    page.get_by_role("button", name="Preview").click()
    problems = page.locator("#import-error li")
    expect(problems).to_have_count(2)
    expect(problems.nth(0)).to_contain_text("Row 2, path: ")
    expect(problems.nth(1)).to_contain_text("Row 4, path: ")
    expect(page.locator("#import-error")).to_contain_text("These rows cannot be imported")
    expect(page.locator("#import-error")).not_to_contain_text("routes.")
    shoot(page, "route-import-bad-rows")
