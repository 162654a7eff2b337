"""Signing in and out of the dashboard in a real browser, against the gunicorn processes."""

from __future__ import annotations

import redis
from playwright.sync_api import BrowserContext, Page, expect

from gateway.identity.auth.sessions import SESSION_COOKIE, session_record_key
from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack


def session_cookie(context: BrowserContext) -> dict:
    cookies = [cookie for cookie in context.cookies() if cookie["name"] == SESSION_COOKIE]
    assert len(cookies) == 1
    return dict(cookies[0])


def test_sign_in_rotates_the_session_and_sign_out_deletes_it(
    page: Page, context: BrowserContext, accounts: Accounts, live_stack: LiveStack
):
    organization = accounts.organization("Northwind")
    account = accounts.user((organization, "owner"), name="Nora Owner")
    page.goto("/login")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    shoot(page, "sign-in")
    # A visitor has no session, only the form's token in a cookie of its own.
    assert [cookie["name"] for cookie in context.cookies()] == ["app-auth.csrf"]

    sign_in(page, account)
    assert page.url.endswith(f"/{organization['slug']}")
    cookie = session_cookie(context)
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Lax"
    assert cookie["secure"] is False  # ENVIRONMENT=development serves plain HTTP
    store = redis.Redis.from_url(live_stack.environ["REDIS_URL"])
    assert store.exists(session_record_key(cookie["value"])) == 1

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    assert store.exists(session_record_key(cookie["value"])) == 0
    page.goto(f"/{organization['slug']}/settings/api-keys")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()  # sent back to sign in
    store.close()


def test_a_wrong_password_and_an_unknown_email_read_the_same(page: Page, accounts: Accounts):
    organization = accounts.organization("Contoso")
    account = accounts.user((organization, "member"))
    messages = []
    for email, password in ((account.email, "not the password"), ("nobody-here@example.com", account.password)):
        page.goto("/login")
        page.get_by_label("Email").fill(email)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        messages.append(page.get_by_role("alert").inner_text())
    shoot(page, "sign-in-refused")
    assert messages == ["The email or password is not right."] * 2


def test_a_post_without_the_csrf_token_is_refused(page: Page, context: BrowserContext, accounts: Accounts):
    organization = accounts.organization("Fabrikam")
    account = accounts.user((organization, "owner"))
    sign_in(page, account)
    response = context.request.post("/logout", form={}, max_redirects=0)
    assert response.status == 403
    assert "did not come from this site" in response.text()
    response = context.request.post("/logout", form={"csrf_token": "forged"}, max_redirects=0)
    assert response.status == 403
    page.reload()  # still signed in: the refused sign-out did nothing
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
