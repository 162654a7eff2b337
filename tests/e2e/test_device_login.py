"""The whole device flow in a real browser: `aivis login` in a subprocess, the code approved on
the dashboard's device page, then the command line acting for the organization."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.cli.conftest import Cli, read_user_code
from tests.e2e.conftest import LiveStack


def test_cli_login_approved_in_the_browser_lists_the_organizations_runs(
    page: Page, accounts: Accounts, live_stack: LiveStack, tmp_path
):
    organization = {"slug": live_stack.organization_id}
    account = accounts.user((organization, "admin"), name="Ada Admin")
    cli = Cli(live_stack, tmp_path / "config")
    process = cli.login()
    code = read_user_code(process)

    sign_in(page, account)
    page.goto("/device")
    expect(page.get_by_role("heading", name="Connect a device")).to_be_visible()
    shoot(page, "device-enter-code")
    page.get_by_label("Code").fill(code.lower())
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name="Approve aivis command line?")).to_be_visible()
    expect(page.locator("#confirm-code")).to_have_text(code)
    expect(page.get_by_role("list", name="Scopes to grant")).to_contain_text("simulations:read")
    shoot(page, "device-confirm")
    page.get_by_role("button", name="Approve").click()
    expect(page.get_by_role("heading", name="Device connected")).to_be_visible()
    shoot(page, "device-connected")

    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert f"Signed in as {account.email}" in stdout
    runs = json.loads(cli.ok("runs", "list", "--json"))
    assert runs["total"] == 12
    assert {run["organizationId"] for run in runs["items"]} == {live_stack.organization_id}


def test_cli_login_denied_in_the_browser_fails_the_command(
    page: Page, accounts: Accounts, live_stack: LiveStack, tmp_path
):
    account = accounts.user(({"slug": live_stack.organization_id}, "member"))
    cli = Cli(live_stack, tmp_path / "config")
    process = cli.login()
    code = read_user_code(process)
    sign_in(page, account)
    page.goto(f"/device?user_code={code}")
    expect(page.locator("#withheld")).to_contain_text("content:write")  # a member approves reads only
    page.get_by_role("button", name="Deny").click()
    expect(page.get_by_role("heading", name="Request denied")).to_be_visible()
    shoot(page, "device-denied")
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 3
    assert "the sign-in was denied" in stderr


def test_the_organization_in_the_drop_down_is_the_one_approved_whatever_button_is_pressed(
    page: Page, accounts: Accounts, live_stack: LiveStack, tmp_path
):
    first, second = accounts.organization("First Org"), accounts.organization("Second Org")
    account = accounts.user((first, "owner"), (second, "admin"))
    sign_in(page, account)
    for index, press_choose in enumerate((False, True)):
        cli = Cli(live_stack, tmp_path / f"config-{index}")
        process = cli.login()
        try:
            code = read_user_code(process)
            page.goto(f"/device?user_code={code}&organization={first['slug']}")
            card = page.get_by_role("region", name="Approve aivis command line?")
            card.get_by_label("Organization").select_option(second["slug"])
            if press_choose:
                card.get_by_role("button", name="Choose").click()
                expect(card.get_by_label("Organization")).to_have_value(second["slug"])
                expect(page.locator("#confirm-code")).to_have_text(code)
                shoot(page, "device-organization-chosen")
            card.get_by_role("button", name="Approve").click()  # without "Choose" too: what the drop-down shows
            expect(page.get_by_role("heading", name="Device connected")).to_be_visible()
            stdout, stderr = process.communicate(timeout=60)
        finally:
            process.kill()
        assert process.returncode == 0, stderr
        assert f"to Second Org ({second['slug']})" in stdout
