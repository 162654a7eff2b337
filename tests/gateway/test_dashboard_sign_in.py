"""Dashboard sign-in over HTTP: sessions, failed-attempt limits, CSRF, cookie flags."""

from __future__ import annotations

import uuid

import pytest
from argon2 import PasswordHasher

from gateway import queries
from gateway.identity.auth.sessions import SESSION_COOKIE, session_record_key
from gateway.settings import GatewaySettings
from libs.common.db import transaction
from libs.common.settings import SettingsError
from libs.contract.parts import GATEWAY
from tests.conftest import Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import sign_in, submit, token_of

WRONG = "The email or password is not right."


def limits(per_account: int, per_address: int, per_account_anywhere: int = 1000) -> dict[str, str]:
    return {
        "SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS": str(per_account),
        "SIGN_IN_FAILURES_PER_ADDRESS": str(per_address),
        "SIGN_IN_FAILURES_PER_ACCOUNT": str(per_account_anywhere),
        "REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}:",  # counts of its own, away from other tests
    }


async def test_sign_in_opens_a_new_session_and_sign_out_deletes_it(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    email, password = await identity.account((org, "admin"))
    client = stack.gateway
    await token_of(client, "/login")
    # A visitor has no session: the form's token is in a cookie of its own, nothing is in Redis.
    assert SESSION_COOKIE not in client.session.cookie_jar.filter_cookies(client.make_url("/"))

    response = await sign_in(client, email.upper(), password)  # emails are not case-sensitive
    assert response.status == 303
    assert response.headers["Location"] == f"/{org.slug}"
    after = response.cookies[SESSION_COOKIE]
    assert after["httponly"] is True and after["samesite"] == "Lax" and not after["secure"]
    assert await identity.redis.exists(session_record_key(after.value)) == 1
    # The session is a credential of the API too, in the organization signed in to.
    api = await client.get("/api/v1/agent-simulation/runs")
    assert api.status == 200

    response = await submit(client, f"/{org.slug}/settings/api-keys", {}, action="/logout")
    assert (response.status, response.headers["Location"]) == (303, "/login?signed-out")
    assert await identity.redis.exists(session_record_key(after.value)) == 0
    assert (await client.get("/api/v1/agent-simulation/runs")).status == 401
    page = await client.get(f"/{org.slug}/settings/api-keys", allow_redirects=False)
    assert (page.status, page.headers["Location"]) == (303, f"/login?next=/{org.slug}/settings/api-keys")


async def test_unknown_email_and_wrong_password_answer_alike(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    email, password = await identity.account((org, "member"))
    answers = []
    for attempt in ((email, "wrong password"), ("nobody@example.com", password), (email, "")):
        response = await sign_in(stack.gateway, *attempt)
        answers.append((response.status, WRONG in await response.text()))
    assert answers == [(401, True)] * 3


async def test_failed_sign_ins_are_limited_per_account_from_an_address(stack: Stack, identity: IdentityFactory):
    client = await stack.start_gateway(limits(per_account=3, per_address=100))
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    other, other_password = await identity.account((org, "owner"))
    try:
        for _ in range(3):
            assert (await sign_in(client, email, "wrong password")).status == 401
        refused = await sign_in(client, email, password)  # the right password, too late
        assert refused.status == 429
        assert "Too many failed sign-ins. Try again in 15 minutes." in await refused.text()
        assert 0 < int(refused.headers["Retry-After"]) <= 900
        assert (await sign_in(client, other, other_password)).status == 303  # another account is not held up
    finally:
        await client.close()


async def test_failed_sign_ins_are_limited_per_address(stack: Stack, identity: IdentityFactory):
    client = await stack.start_gateway(limits(per_account=100, per_address=3))
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    try:
        for index in range(3):
            assert (await sign_in(client, f"guess-{index}@example.com", "wrong password")).status == 401
        assert (await sign_in(client, email, password)).status == 429
    finally:
        await client.close()


async def test_a_success_clears_the_account_count(stack: Stack, identity: IdentityFactory):
    client = await stack.start_gateway(limits(per_account=2, per_address=100))
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    try:
        assert (await sign_in(client, email, "wrong password")).status == 401
        assert (await sign_in(client, email, password)).status == 303
        client.session.cookie_jar.clear()
        assert (await sign_in(client, email, "wrong password")).status == 401
        assert (await sign_in(client, email, password)).status == 303
    finally:
        await client.close()


async def test_posts_without_a_valid_csrf_token_or_from_another_site_are_refused(
    stack: Stack, identity: IdentityFactory
):
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    client = stack.gateway
    token = await token_of(client, "/login")
    fields = {"email": email, "password": password}
    for data, headers in (
        (fields, {}),
        ({**fields, "csrf_token": "forged"}, {}),
        ({**fields, "csrf_token": token}, {"Origin": "https://elsewhere.example"}),
    ):
        response = await client.post("/login", data=data, headers=headers, allow_redirects=False)
        assert response.status == 403
        assert "text/html" in response.headers["Content-Type"]
        assert "did not come from this site" in await response.text()
    assert (await client.post("/login", data={**fields, "csrf_token": token}, allow_redirects=False)).status == 303


async def test_the_cookies_are_secure_outside_development(stack: Stack, identity: IdentityFactory):
    client = await stack.start_gateway({"ENVIRONMENT": "production", "PUBLIC_URL": "https://api.example.com"})
    try:
        response = await client.get("/login")
        form_cookie = response.cookies["app-auth.csrf"]
        assert form_cookie["secure"] is True and form_cookie["httponly"] is True and form_cookie["samesite"] == "Strict"
        assert response.headers["Cache-Control"] == "no-store"
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
        # The client does not send a Secure cookie over plain http: the test sends it itself.
        token = (await response.text()).split('name="csrf_token" value="')[1].split('"')[0]
        email, password = await identity.account((await identity.organization(), "member"))
        response = await client.post(
            "/login",
            data={"email": email, "password": password, "csrf_token": token},
            headers={"Cookie": f"app-auth.csrf={form_cookie.value}"},
            allow_redirects=False,
        )
        assert response.status == 303, await response.text()
        cookie = response.cookies[SESSION_COOKIE]
        assert cookie["secure"] is True and cookie["httponly"] is True and cookie["samesite"] == "Lax"
    finally:
        await client.close()


async def test_sign_in_returns_to_the_page_asked_for_and_only_on_this_site(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    email, password = await identity.account((org, "viewer"))
    for asked, location in (
        ("/orgs", "/orgs"),
        ("//elsewhere.example/x", f"/{org.slug}"),
        ("/\t/elsewhere.example", f"/{org.slug}"),
    ):
        stack.gateway.session.cookie_jar.clear()
        response = await submit(stack.gateway, "/login", {"email": email, "password": password, "next": asked})
        assert (response.status, response.headers["Location"]) == (303, location)


def test_a_clock_offset_is_refused_outside_development():
    environ = {
        "DATABASE_URL": "postgresql://x@localhost/x",
        "INTERNAL_TOKEN_SECRET": "s" * 48,
        "JWT_PRIVATE_KEY": "k",
        "CLOCK_OFFSET_SECONDS": "60",
    }
    with pytest.raises(SettingsError, match="CLOCK_OFFSET_SECONDS is for ENVIRONMENT=development only"):
        GatewaySettings.load(GATEWAY, environ)
    assert GatewaySettings.load(GATEWAY, {**environ, "ENVIRONMENT": "development"}).clock_offset_seconds == 60


async def test_a_hash_made_with_older_parameters_is_upgraded_at_sign_in(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    weaker = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(password)
    async with transaction(identity.pool) as cur:
        user = await queries.find_user_for_sign_in(cur, email)
        await queries.set_password_hash(cur, user["id"], weaker)
    assert (await sign_in(stack.gateway, email, password)).status == 303
    async with transaction(identity.pool) as cur:
        stored = (await queries.find_user_for_sign_in(cur, email))["password_hash"]
    assert stored != weaker and not PasswordHasher().check_needs_rehash(stored)
    assert PasswordHasher().verify(stored, password)
