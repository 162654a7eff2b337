"""The device flow under attack: device codes requested in bulk, user codes guessed on /device,
and pending codes left to pile up."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

from aiohttp.test_utils import TestClient

from gateway.identity.oauth import device
from libs.common.db import cursor, fetch_value
from tests.conftest import Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import signed_in, submit
from tests.oauth.conftest import CLI, Clock, decide, start_device


def own_counts(**limits: int) -> dict[str, str]:
    return {**{name: str(value) for name, value in limits.items()}, "REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}:"}


async def test_device_codes_are_limited_per_address(stack: Stack):
    gateway = await stack.start_gateway(own_counts(DEVICE_CODES_PER_ADDRESS=3))
    try:
        responses = await asyncio.gather(
            *(gateway.post("/api/v1/oauth/device/code", data={"client_id": CLI}) for _ in range(8))
        )
        assert sorted(response.status for response in responses) == [200] * 3 + [429] * 5
        refused = next(response for response in responses if response.status == 429)
        assert (await refused.json())["error"] == "slow_down"
        assert 0 < int(refused.headers["Retry-After"]) <= 900
        assert refused.headers["Cache-Control"] == "no-store"
    finally:
        await gateway.close()


async def test_user_code_guesses_are_limited_per_account_and_per_address(stack: Stack, identity: IdentityFactory):
    settings = own_counts(USER_CODE_MISSES_PER_ACCOUNT=3, USER_CODE_MISSES_PER_ADDRESS=5)
    first, second = await stack.start_gateway(settings), await stack.start_gateway(settings)
    try:
        org = await identity.organization()
        started = await start_device(first)
        for client in (first, second):  # two people, from one address
            await signed_in(client, *await identity.account((org, "owner")))
        guesses = await asyncio.gather(*(first.get("/device?user_code=BBBB-BBBB") for _ in range(6)))
        assert sorted(response.status for response in guesses) == [404] * 3 + [429] * 3
        refused = next(response for response in guesses if response.status == 429)
        assert "Too many codes tried." in await refused.text()
        # A right code from that account is refused too now: a guess cannot be told from a hit.
        assert (await first.get(f"/device?user_code={started['user_code']}")).status == 429
        # The other account has its own count: a hit spends nothing.
        assert (await second.get(f"/device?user_code={started['user_code']}")).status == 200
        statuses = [(await second.get("/device?user_code=CCCC-CCCC")).status for _ in range(3)]
        assert statuses == [404, 404, 429]  # once it has missed too, the address's 3 + 2 misses bind it
    finally:
        await first.close()
        await second.close()


async def test_a_shared_address_full_of_misses_never_blocks_a_member_approving_a_right_code(
    stack: Stack, identity: IdentityFactory
):
    gateway = await stack.start_gateway(own_counts(USER_CODE_MISSES_PER_ACCOUNT=10, USER_CODE_MISSES_PER_ADDRESS=30))
    office = [gateway]
    try:
        for _ in range(3):  # more browsers on the same gateway, each with its own cookies
            office.append(TestClient(gateway.server))
            await office[-1].start_server()
        org = await identity.organization()
        for client in office:
            await signed_in(client, *await identity.account((org, "member")))
        guessers, colleague = office[:3], office[3]
        misses = await asyncio.gather(
            *(client.get(f"/device?user_code=GGGG-{letter * 4}") for client in guessers for letter in "BCDFGHJKLMNP")
        )
        assert sum(response.status == 404 for response in misses) == 30  # the address's ceiling, reached
        assert sum(response.status == 429 for response in misses) == 6
        started = await start_device(colleague)
        page = f"/device?user_code={started['user_code']}"
        fields = {"user_code": started["user_code"], "organization": org.slug, "decision": "approve"}
        approved = await submit(colleague, page, fields, action="/device")
        assert approved.status == 200, await approved.text()
        async with cursor(identity.pool) as cur:
            status = await fetch_value(
                cur,
                "SELECT status FROM device_authorizations WHERE user_code = %s",
                (device.normalize_user_code(started["user_code"]),),
            )
        assert status == "approved"
    finally:
        for client in reversed(office[1:]):
            await client.session.close()
        await gateway.close()


async def test_expired_codes_are_deleted(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    pending, decided = await start_device(oauth), await start_device(oauth)
    await decide(oauth, identity, org, "owner", decided["user_code"], "deny")

    async def stored(user_code: str) -> bool:
        async with cursor(identity.pool) as cur:
            code = user_code.replace("-", "")
            return bool(
                await fetch_value(cur, "SELECT count(*) FROM device_authorizations WHERE user_code = %s", (code,))
            )

    later = clock.now + timedelta(seconds=device.EXPIRES_IN_SECONDS) + timedelta(minutes=11)
    await device.delete_expired(identity.pool, lambda: later)
    assert (await stored(pending["user_code"]), await stored(decided["user_code"])) == (False, True)
    await device.delete_expired(identity.pool, lambda: later + timedelta(days=1))
    assert await stored(decided["user_code"]) is False
