"""The API-keys pages in a real browser against the gunicorn processes, as a person uses them."""

from __future__ import annotations

import re
import shlex
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import BrowserContext, Page, expect

from libs.contract.parts import GATEWAY, PARTS
from libs.local.ports import free_port
from libs.local.processes import start, stop, wait_ready
from libs.local.stores import DATA
from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack

RUNS = "/api/v1/agent-simulation/runs"


def api_status(base: str, key: str) -> int:
    request = urllib.request.Request(base + RUNS, headers={"x-api-key": key})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def seconds_until_refused(base: str, key: str, limit: float) -> float:
    started = time.monotonic()
    while api_status(base, key) != 401:
        assert time.monotonic() - started < limit, "the key is still accepted"
        time.sleep(0.05)
    return time.monotonic() - started


@contextmanager
def gateway_ahead(stack: LiveStack, seconds: int) -> Iterator[str]:
    """Another gateway process on the same stores whose clock runs `seconds` ahead."""
    ports = {part.name: int(stack.urls[part.name].rsplit(":", 1)[1]) for part in PARTS}
    ports[GATEWAY.name] = free_port()
    environ = {**stack.environ, "CLOCK_OFFSET_SECONDS": str(seconds)}
    with open(DATA / "e2e-gateway-ahead.log", "wb") as output:
        running = start([GATEWAY], environ, ports, output)
        try:
            wait_ready(running)
            yield f"http://127.0.0.1:{ports[GATEWAY.name]}"
        finally:
            stop(running)


def test_create_a_key_call_the_api_with_it_then_revoke_it(
    page: Page, context: BrowserContext, accounts: Accounts, live_stack: LiveStack
):
    organization = accounts.organization("Globex")
    account = accounts.user((organization, "owner"), name="Grace Owner")
    sign_in(page, account)
    page.goto(f"/{organization['slug']}/settings/api-keys")
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    shoot(page, "api-keys-empty")

    page.get_by_label("Name").fill("nightly export")
    page.get_by_role("checkbox", name=re.compile(r"^simulations:read")).check()
    page.get_by_role("checkbox", name=re.compile(r"^content:read")).check()
    page.get_by_label("Expires").select_option(label="In 90 days")
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_role("heading", name="Your new API key")).to_be_visible()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    secret = page.get_by_label("nightly export").input_value()
    assert re.fullmatch(r"avk_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}", secret)
    page.get_by_role("button", name="Copy").first.click()
    expect(page.get_by_role("status")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == secret
    shoot(page, "api-key-created")

    curl = page.get_by_label("Try it").input_value()
    assert curl == f'curl -s -H "x-api-key: {secret}" {live_stack.gateway}{RUNS}'
    pasted = subprocess.run(
        shlex.split(curl) + ["-o", "/dev/null", "-w", "%{http_code}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert pasted.stdout == "200"
    assert api_status(live_stack.gateway, secret) == 200

    page.reload()  # no second key, and the secret is not shown again
    expect(page.get_by_text("shown once, right after it is created")).to_be_visible()
    expect(page.locator("#new-secret")).to_have_count(0)
    assert len(accounts.admin("list-keys", "--org", organization["slug"])["keys"]) == 1
    page.goto(f"/{organization['slug']}/settings/api-keys")
    row = page.get_by_role("row", name=re.compile("nightly export"))
    expect(row).to_contain_text("Active")
    expect(row).to_contain_text("content:read")
    expect(row).to_contain_text("simulations:read")
    shoot(page, "api-keys-list")
    page.get_by_role("link", name="Revoke nightly export").click()
    expect(page.get_by_role("heading", name="Revoke this key?")).to_be_visible()
    shoot(page, "api-key-revoke")
    page.get_by_role("button", name="Revoke key").click()
    expect(page.get_by_role("status")).to_contain_text("is revoked")
    assert seconds_until_refused(live_stack.gateway, secret, 2.0) < 2.0
    expect(page.get_by_role("row", name=re.compile("nightly export"))).to_contain_text("Revoked")
    shoot(page, "api-keys-revoked")

    page.get_by_role("link", name="nightly export").click()
    history = page.get_by_role("list").filter(has_text="Created by")
    expect(history).to_contain_text(f"Created by {account.email}")
    expect(history).to_contain_text(f"Revoked by {account.email}")
    shoot(page, "api-key-history")


def test_rotate_with_a_grace_period(page: Page, accounts: Accounts, live_stack: LiveStack):
    organization = accounts.organization("Initech")
    account = accounts.user((organization, "admin"))
    old = accounts.admin(
        "create-key",
        "--org",
        organization["slug"],
        "--name",
        "reports",
        "--scopes",
        "simulations:read,content:read,content:write",
    )["key"]
    sign_in(page, account)
    page.goto(f"/{organization['slug']}/settings/api-keys")
    page.get_by_role("link", name="Rotate reports").click()
    expect(page.get_by_role("heading", name=re.compile("^Rotate"))).to_be_visible()
    scopes = page.get_by_role("checkbox")
    expect(scopes).to_have_count(3)  # only the old key's scopes: the same or narrower
    expect(page.get_by_label("Name")).to_have_value("reports")
    page.get_by_label("Name").fill("reports (rotated)")
    page.get_by_role("checkbox", name=re.compile(r"^content:write")).uncheck()
    page.get_by_label("When the old key stops working").select_option(label="After 1 hour")
    shoot(page, "api-key-rotate")
    page.get_by_role("button", name="Create the new key").click()
    expect(page.get_by_text("which keeps working until")).to_be_visible()
    new = page.locator("#new-secret").input_value()
    shoot(page, "api-key-rotated")

    time.sleep(1.5)  # revocation polls pass: the old key is not due yet
    assert (api_status(live_stack.gateway, old), api_status(live_stack.gateway, new)) == (200, 200)
    page.goto(f"/{organization['slug']}/settings/api-keys")
    old_row = page.get_by_role("row", name=re.compile(re.escape(old[:12])))
    expect(old_row).to_contain_text("Active until")
    shoot(page, "api-keys-rotated-list")
    old_row.get_by_role("link", name="reports", exact=True).click()
    rotated = page.locator(".timeline .event", has_text="Rotated by")  # one line, the time inside it
    expect(rotated).to_contain_text(
        re.compile(r"replaced by avk_\w+…,\s+working until \d{4}-\d\d-\d\d \d\d:\d\d UTC\s*$")
    )
    shoot(page, "api-key-history-rotated")
    page.goto(f"/{organization['slug']}/settings/api-keys")
    with gateway_ahead(live_stack, 3600 + 60) as later:
        assert (api_status(later, old), api_status(later, new)) == (401, 200)
        page.goto(f"{later}/{organization['slug']}/settings/api-keys")  # the same session, an hour on
        expect(old_row).to_contain_text("Revoked")
        expect(page.get_by_role("row", name=re.compile(re.escape(new[:12])))).to_contain_text("Active")
        shoot(page, "api-keys-after-grace")


def test_a_member_sees_the_keys_but_cannot_create_one(page: Page, context: BrowserContext, accounts: Accounts):
    organization = accounts.organization("Umbrella")
    accounts.admin("create-key", "--org", organization["slug"], "--name", "shared", "--scopes", "content:read")
    account = accounts.user((organization, "member"))
    sign_in(page, account)
    page.goto(f"/{organization['slug']}/settings/api-keys")
    expect(page.get_by_role("row", name=re.compile("^shared"))).to_be_visible()
    expect(page.get_by_role("button", name="Create key")).to_have_count(0)
    expect(page.get_by_role("link", name="Revoke shared")).to_have_count(0)
    expect(page.get_by_text("You are a member of Umbrella")).to_be_visible()
    shoot(page, "api-keys-member")
    token = page.locator("input[name=csrf_token]").first.input_value()
    response = context.request.post(
        f"/{organization['slug']}/settings/api-keys",
        form={"csrf_token": token, "name": "mine", "scopes": "content:read", "expiry": "never"},
    )
    assert response.status == 403
    assert "Only owners and admins" in response.text()
    assert len(accounts.admin("list-keys", "--org", organization["slug"])["keys"]) == 1
    page.get_by_role("link", name="shared").click()
    forbidden = page.goto(page.url + "/revoke")
    assert forbidden is not None and forbidden.status == 403
    expect(page.get_by_role("heading", name="Not allowed")).to_be_visible()
    shoot(page, "forbidden")


def test_another_organizations_settings_are_not_found(page: Page, accounts: Accounts):
    mine, theirs = accounts.organization("Hooli"), accounts.organization("Pied Piper")
    sign_in(page, accounts.user((mine, "owner")))
    response = page.goto(f"/{theirs['slug']}/settings/api-keys")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    expect(page.get_by_text("Pied Piper")).to_have_count(0)
    shoot(page, "not-found")


def test_switch_organization(page: Page, accounts: Accounts):
    first, second = accounts.organization("Stark Industries"), accounts.organization("Wayne Enterprises")
    sign_in(page, accounts.user((first, "owner"), (second, "viewer"), name="Pepper Potts"))
    page.get_by_role("link", name="Organizations").click()
    expect(page.get_by_role("link", name="Wayne Enterprises")).to_be_visible()
    shoot(page, "organizations")
    page.get_by_label("Organization").select_option(label="Wayne Enterprises")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url(f"**/{second['slug']}")
    expect(page.get_by_label("Organization")).to_have_value(second["slug"])
