"""One guess from each of many addresses, at one account: past a few failures the account's
sign-ins from unfamiliar addresses go one at a time, further apart as failures grow; its owner,
from an address they signed in from before, is never slowed; and the owner is told."""

from __future__ import annotations

import asyncio
import re

from tests.conftest import Stack
from tests.events.conftest import Tenant
from tests.events.test_audit import until_audited
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import page, token_of
from tests.reliability.test_sign_in_attacks import limits

ADDRESSES = 40


async def attempt(client, email: str, password: str, address: str, token: str) -> int:
    data = {"csrf_token": token, "email": email, "password": password}
    response = await client.post("/login", data=data, headers={"X-Forwarded-For": address}, allow_redirects=False)
    return response.status


async def test_many_addresses_one_guess_each_are_slowed_and_the_owner_is_told(stack: Stack, identity: IdentityFactory):
    client = await stack.start_gateway(
        {
            **limits(),
            "TRUSTED_PROXIES": "127.0.0.1/32",
            "SIGN_IN_SLOW_DOWN_AFTER": "5",
            "SIGN_IN_SLOW_DOWN_MILLISECONDS": "6000",
            # The stack's prefix, so its events part stores this gateway's audit records.
            "REDIS_PREFIX": stack.environ["REDIS_PREFIX"],
        }
    )
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    tenant = Tenant(org, await identity.api_key(org), stack.gateway, await identity.product(org))
    try:
        token = await token_of(client, "/login")
        assert await attempt(client, email, password, "198.51.100.7", token) == 303  # the owner's usual place
        client.session.cookie_jar.clear()
        token = await token_of(client, "/login")
        guesses = await asyncio.gather(
            *(attempt(client, email, f"guess {n}", f"203.0.113.{n}", token) for n in range(ADDRESSES))
        )
        # Every address is fresh, so the per-account ceiling lets each guess (40 before the
        # slow-down). Now the first few pass while the account has fewer than 5 failures (all of
        # them when the burst arrives at once, fewer on a loaded machine that spreads it out), then
        # one per 6 s step, none waiting more than 10 s; the rest are refused. (A Redis connection
        # timing out on a loaded machine is a 503: nothing checked.)
        assert set(guesses) <= {401, 429, 503}, guesses
        assert 1 <= guesses.count(401) <= 5 + 2, guesses
        assert guesses.count(429) >= ADDRESSES - 7 - guesses.count(503), guesses
        # The owner, from where they signed in before, is never slowed, and is told.
        started = asyncio.get_running_loop().time()
        assert await attempt(client, email, password, "198.51.100.7", token) == 303
        assert asyncio.get_running_loop().time() - started < 5.0  # a gated attempt would wait its 6 s turn
        landing = await page(client, f"/{org.slug}")
        assert re.search(r"There were \d+ failed sign-ins to your account", landing)
        security = await page(client, f"/{org.slug}/settings/security")
        assert "Failed sign-ins to your account" in security
        events = await until_audited(tenant, 1, "?action=account.sign_in_failures")
        assert [(event["actor"]["label"], event["result"]) for event in events] == [(email, "failure")]
    finally:
        await client.close()
