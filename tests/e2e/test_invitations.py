"""Inviting someone in a real browser against the gunicorn processes: the owner invites an email,
the person without an account opens the link in their own browser, opens the account and joins;
the members page lists who is invited until they answer. Screenshots at desktop and phone width."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.conftest import LiveStack

NARROW = {"width": 390, "height": 844}


def test_an_invited_person_opens_an_account_by_the_link_and_joins(
    page: Page, browser: Browser, accounts: Accounts, live_stack: LiveStack
):
    org = accounts.organization("Fabrikam")
    owner = accounts.user((org, "owner"), name="Omar Owner")
    sign_in(page, owner)
    page.goto(f"/{org['slug']}/settings/members")
    email = f"ines-{org['slug']}@example.com"
    page.get_by_label("Email", exact=True).fill(email)
    page.get_by_label("Role", exact=True).select_option("member")
    page.get_by_role("button", name="Invite", exact=True).click()
    notice = page.get_by_role("status").inner_text()
    link = re.search(r"https?://\S+/invitations/[A-Za-z0-9_-]{43}", notice)
    assert link is not None, notice
    expect(page.get_by_role("heading", name="Invitations not answered yet")).to_be_visible()
    shoot(page, "members-invited")

    invited = browser.new_context(base_url=live_stack.gateway, viewport=NARROW)
    try:
        person = invited.new_page()
        person.goto(link.group(0))
        expect(person.get_by_role("heading", name="Join Fabrikam")).to_be_visible()
        shoot(person, "invitation-phone")
        person.get_by_label("Your name").fill("Ines Invited")
        person.get_by_label("Password").fill("a long enough passphrase")
        person.get_by_role("button", name="Open my account and join").click()
        person.wait_for_url(f"**/{org['slug']}")
        expect(person.get_by_text("Welcome to Fabrikam.")).to_be_visible()
        shoot(person, "invitation-joined-phone")
    finally:
        invited.close()

    page.reload()
    expect(page.get_by_role("cell", name=re.compile("Ines Invited"))).to_be_visible()
    expect(page.get_by_role("heading", name="Invitations not answered yet")).to_have_count(0)
