"""One anonymous client flooding the dashboard, through the gateway: its pages are limited per
address and store nothing, while a signed-in person at the same address is served throughout;
and a session Redis cannot read is served signed out, never a 503."""

from __future__ import annotations

import asyncio
import uuid

import aiohttp
from aiohttp.test_utils import TestClient

from libs.local.ports import free_port
from tests.conftest import Client, Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import page, signed_in

FLOOD = 300  # parallel requests, as the attack sent; bounded so the test stays quick
BURST = 30


async def flood(client: Client, path: str) -> list[aiohttp.ClientResponse]:
    # A client that keeps no cookies, so every request is a first visit.
    url = str(client.make_url(path))
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:

        async def one() -> aiohttp.ClientResponse:
            async with session.get(url, allow_redirects=False) as answer:
                await answer.read()
                return answer

        return await asyncio.gather(*(one() for _ in range(FLOOD)))


async def test_a_login_flood_is_limited_and_a_signed_in_member_is_served_throughout(
    stack: Stack, identity: IdentityFactory
):
    gateway = await stack.start_gateway(
        {
            "VISITOR_REQUESTS_BURST": str(BURST),
            "VISITOR_REQUESTS_PER_MINUTE": "60",
            "REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}:",
        }
    )
    member = TestClient(gateway.server)
    await member.start_server()
    try:
        org = await identity.organization()
        await signed_in(member, *await identity.account((org, "member")))
        pages = [f"/{org.slug}", f"/{org.slug}/settings/members", f"/{org.slug}/settings/security", "/orgs"] * 5

        async def browse() -> list[int]:
            statuses = []
            for path in pages:
                async with member.get(path, allow_redirects=False) as answer:
                    statuses.append(answer.status)
            return statuses

        answers, statuses = await asyncio.gather(flood(gateway, "/login"), browse())
        assert statuses == [200] * len(pages)
        codes = [answer.status for answer in answers]
        assert set(codes) == {200, 429}, set(codes)
        assert codes.count(200) <= BURST + 10  # the burst, and what refills while the flood lasts
        refused = next(answer for answer in answers if answer.status == 429)
        assert int(refused.headers["Retry-After"]) >= 1
        assert all("app-auth.session_token" not in answer.cookies for answer in answers)  # nothing stored
        # The member's own sign-in page visits are not the flood's: still signed in and served.
        assert "Too many requests" not in await page(member, f"/{org.slug}")
    finally:
        await member.session.close()
        await gateway.close()


async def test_a_visitor_signs_in_with_the_forms_cookie_token_and_no_stored_session(
    stack: Stack, identity: IdentityFactory
):
    org = await identity.organization()
    async with stack.gateway.get("/login") as answer:
        assert answer.status == 200
        assert "app-auth.csrf" in answer.cookies and "app-auth.session_token" not in answer.cookies
        assert answer.cookies["app-auth.csrf"]["samesite"] == "Strict"
    client = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    await page(client, f"/{org.slug}")


async def test_a_session_redis_cannot_read_is_served_signed_out(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    cookie = f"app-auth.session_token={await identity.session(await identity.user(org), org)}"
    gateway = await stack.start_gateway({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    try:
        async with gateway.get(f"/{org.slug}", headers={"Cookie": cookie}, allow_redirects=False) as answer:
            assert (answer.status, answer.headers["Location"]) == (303, f"/login?next=/{org.slug}")
            assert "app-auth.session_token" not in answer.cookies  # the browser keeps its cookie
        async with gateway.get("/login", headers={"Cookie": cookie}) as answer:
            assert answer.status == 200 and "Sign in" in await answer.text()
        async with gateway.get("/api/v1/credential", headers={"Cookie": cookie}) as answer:
            assert answer.status == 401
    finally:
        await gateway.close()
