"""Who sees members' sign-ins in the audit trail, through the gateway: owners and admins do;
members and viewers see the rest of the trail. A sign-in is recorded only in the organization
it opens, never in the person's other organizations."""

from __future__ import annotations

from typing import Any

from tests.conftest import Stack
from tests.events.conftest import Tenant
from tests.events.test_audit import until_audited
from tests.factories import IdentityFactory, Org


async def sign_in(stack: Stack, email: str, password: str) -> int:
    """A sign-in through the form; the client forgets the session, so later calls say who they are."""
    async with stack.gateway.get("/login") as page:
        token = (await page.text()).split('name="csrf_token" value="')[1].split('"')[0]
    form = {"email": email, "password": password, "csrf_token": token}
    async with stack.gateway.post("/login", data=form, allow_redirects=False) as answer:
        stack.gateway.session.cookie_jar.clear()
        return answer.status


async def trail_as(tenant: Tenant, identity: IdentityFactory, role: str, query: str = "") -> list[dict[str, Any]]:
    cookie = await identity.session(await identity.user(tenant.org, role), tenant.org)
    async with tenant.gateway.get(
        f"/api/v1/audit-events{query}", headers={"Cookie": f"app-auth.session_token={cookie}"}
    ) as answer:
        body = await answer.json()
        assert answer.status == 200, body
        events: list[dict[str, Any]] = body["data"]["events"]
        return events


async def test_viewers_and_members_do_not_see_sign_ins_owners_and_admins_do(
    stack: Stack, identity: IdentityFactory, tenant: Tenant
):
    email, password = await identity.account((tenant.org, "member"))
    assert await sign_in(stack, email, "wrong-password") == 401
    assert await sign_in(stack, email, password) == 303
    await tenant.call("POST", "/api/v1/webhook-endpoints", json={"url": "ftp://x", "events": ["*"]})  # a refusal
    seen = await until_audited(tenant, 3)  # the tenant's key holds every scope
    assert {"session.sign_in", "webhook_endpoint.created"} <= {event["action"] for event in seen}
    for role in ("owner", "admin"):
        signed = await trail_as(tenant, identity, role, "?action=session.sign_in")
        assert [event["result"] for event in signed] == ["success", "failure"], role
        assert all(event["clientAddress"] for event in signed)
    for role in ("member", "viewer"):
        trail = await trail_as(tenant, identity, role)
        assert "session.sign_in" not in {event["action"] for event in trail}, role
        assert "webhook_endpoint.created" in {event["action"] for event in trail}, role
        assert await trail_as(tenant, identity, role, "?action=session.sign_in") == []


async def test_a_sign_in_is_recorded_only_in_the_organization_it_opens(
    stack: Stack, identity: IdentityFactory, tenant: Tenant
):
    other: Org = await identity.organization()
    other_tenant = Tenant(other, await identity.api_key(other), stack.gateway, await identity.product(other))
    # Both organizations named alike but for the first letter, so the person's first by name is known.
    email, password = await identity.account((tenant.org, "member"), (other, "member"))
    opened_first = min((tenant, other_tenant), key=lambda each: each.org.name)
    elsewhere = other_tenant if opened_first is tenant else tenant
    assert await sign_in(stack, email, "wrong-password") == 401
    assert await sign_in(stack, email, password) == 303
    events = await until_audited(opened_first, 2, "?action=session.sign_in")
    assert {event["actor"]["label"] for event in events} == {email}
    # Published together with the first organization's, so absent now means never recorded.
    assert await until_audited(elsewhere, 0, "?action=session.sign_in") == []
