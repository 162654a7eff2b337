"""Membership by consent, through the dashboard: an invitation the person accepts (signed in, or
by the link when they have no account yet), declines, or never answers; and leaving."""

from __future__ import annotations

import re

from gateway import queries
from libs.common.db import cursor
from tests.conftest import Stack
from tests.factories import IdentityFactory, Org
from tests.gateway.conftest import Browser
from tests.gateway.dashboard_client import CSRF, page, signed_in, submit

LINK = re.compile(r"(/invitations/[A-Za-z0-9_-]{43})")


async def role_of(identity: IdentityFactory, email: str, org: Org) -> str | None:
    async with cursor(identity.pool) as cur:
        user = await queries.find_user_for_sign_in(cur, email)
        return None if user is None else await queries.find_membership_role(cur, user["id"], org.id)


async def invite(stack: Stack, identity: IdentityFactory, org: Org, email: str, role: str) -> str:
    """An owner of `org` invites `email`; returns the link's path, as the members page shows it once."""
    owner = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    members = f"/{org.slug}/settings/members"
    response = await submit(owner, members, {"email": email, "role": role})
    assert (response.status, response.headers["Location"]) == (303, members), await response.text()
    shown = await page(owner, members)
    found = LINK.search(shown)
    assert found is not None and email in shown
    assert LINK.search(await page(owner, members)) is None  # the link is shown once
    stack.gateway.session.cookie_jar.clear()
    return found.group(1)


async def test_an_existing_user_of_another_organization_joins_only_by_accepting(
    stack: Stack, identity: IdentityFactory, browser: Browser
):
    mine, theirs = await identity.organization(), await identity.organization()
    email, password = await identity.account((theirs, "owner"))
    await invite(stack, identity, mine, email, "admin")
    assert await role_of(identity, email, mine) is None  # not a member before saying yes
    person = await signed_in(await browser(), email, password)
    await page(person, f"/{mine.slug}", 404)
    orgs = await page(person, "/orgs")
    assert mine.name in orgs and "Accept" in orgs
    invitation_id = re.search(r'action="/invitations/([0-9a-f-]{36})/accept"', orgs).group(1)  # type: ignore[union-attr]
    accepted = await submit(person, "/orgs", {}, action=f"/invitations/{invitation_id}/accept")
    assert (accepted.status, accepted.headers["Location"]) == (303, f"/{mine.slug}")
    assert await role_of(identity, email, mine) == "admin"
    await page(person, f"/{mine.slug}")
    again = await submit(person, "/orgs", {}, action=f"/invitations/{invitation_id}/accept")
    assert again.status == 404  # answered once


async def test_a_declined_invitation_adds_nobody_and_is_gone(stack: Stack, identity: IdentityFactory, browser: Browser):
    mine, theirs = await identity.organization(), await identity.organization()
    email, password = await identity.account((theirs, "member"))
    link = await invite(stack, identity, mine, email, "member")
    person = await signed_in(await browser(), email, password)
    shown = await page(person, link)
    assert "Accept and join" in shown
    invitation_id = re.search(r'action="/invitations/([0-9a-f-]{36})/decline"', shown).group(1)  # type: ignore[union-attr]
    declined = await submit(person, link, {}, action=f"/invitations/{invitation_id}/decline")
    assert (declined.status, declined.headers["Location"]) == (303, "/orgs")
    assert await role_of(identity, email, mine) is None
    await page(person, link, 404)
    assert mine.name not in await page(person, "/orgs")


async def test_a_person_without_an_account_opens_one_by_the_link_and_joins(
    stack: Stack, identity: IdentityFactory, browser: Browser
):
    org = await identity.organization()
    email = f"new-{org.slug}@example.com"
    link = await invite(stack, identity, org, email, "viewer")
    visitor = await browser()
    form = await page(visitor, link)
    assert "Open my account and join" in form and email in form
    short = await submit(visitor, link, {"name": "Nia New", "password": "short"}, action=f"{link}/account")
    assert short.status == 422 and await role_of(identity, email, org) is None
    joined = await submit(
        visitor, link, {"name": "Nia New", "password": "a long enough passphrase"}, action=f"{link}/account"
    )
    assert (joined.status, joined.headers["Location"]) == (303, f"/{org.slug}")
    assert await role_of(identity, email, org) == "viewer"
    assert "Nia New" in await page(visitor, f"/{org.slug}/settings/members")  # signed in, as themselves
    await page(visitor, link, 404)  # the link works once
    assert (await signed_in(await browser(), email, "a long enough passphrase")) is not None


async def test_the_link_is_for_its_email_only(stack: Stack, identity: IdentityFactory, browser: Browser):
    org, other = await identity.organization(), await identity.organization()
    link = await invite(stack, identity, org, f"someone-{org.slug}@example.com", "member")
    stranger = await signed_in(await browser(), *await identity.account((other, "owner")))
    shown = await page(stranger, link, 403)
    assert "Accept and join" not in shown
    token = CSRF.search(shown).group(1)  # type: ignore[union-attr]
    form = {"csrf_token": token, "name": "X", "password": "a long enough passphrase"}
    refused = await stranger.post(f"{link}/account", data=form, allow_redirects=False)
    assert refused.status == 403  # signed in as someone else: the account form is not theirs
    assert await role_of(identity, f"someone-{org.slug}@example.com", org) is None


async def test_a_member_leaves_and_the_last_owner_cannot(stack: Stack, identity: IdentityFactory, browser: Browser):
    org = await identity.organization()
    viewer_email, viewer_password = await identity.account((org, "viewer"))
    owner_email, owner_password = await identity.account((org, "owner"))
    viewer = await signed_in(await browser(), viewer_email, viewer_password)
    members = f"/{org.slug}/settings/members"
    left = await submit(viewer, members, {}, action=f"{members}/leave")
    assert (left.status, left.headers["Location"]) == (303, "/orgs")
    assert await role_of(identity, viewer_email, org) is None
    await page(viewer, f"/{org.slug}", 404)
    owner = await signed_in(await browser(), owner_email, owner_password)
    stays = await submit(owner, members, {}, action=f"{members}/leave")
    assert stays.status == 409 and "at least one owner" in await stays.text()
    assert await role_of(identity, owner_email, org) == "owner"
