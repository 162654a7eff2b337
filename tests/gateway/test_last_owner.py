"""The last-owner rule under concurrency, through the dashboard: owners demoting and removing each
other all at once never leave the organization without an owner."""

from __future__ import annotations

import asyncio

from gateway import queries
from libs.common.db import cursor
from tests.conftest import Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import CSRF

OWNERS = 10


async def test_twenty_concurrent_demotions_and_removals_leave_an_owner(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    owners = [await identity.user(org, "owner") for _ in range(OWNERS)]
    cookies = [f"app-auth.session_token={await identity.session(user, org)}" for user in owners]
    members = f"/{org.slug}/settings/members"
    tokens = []
    for cookie in cookies:
        async with stack.gateway.get(members, headers={"Cookie": cookie}) as answer:
            found = CSRF.search(await answer.text())
            assert answer.status == 200 and found is not None
            tokens.append(found.group(1))

    async def change(actor: int, action: str) -> int:
        target = owners[(actor + 1 + (action == "remove")) % OWNERS]
        form = {"csrf_token": tokens[actor], **({"role": "viewer"} if action == "role" else {})}
        async with stack.gateway.post(
            f"{members}/{target}/{action}", data=form, headers={"Cookie": cookies[actor]}, allow_redirects=False
        ) as answer:
            return answer.status

    statuses = await asyncio.gather(
        *(change(actor, action) for actor in range(OWNERS) for action in ("role", "remove"))
    )
    assert len(statuses) == 20 and 303 in statuses, statuses
    assert set(statuses) <= {303, 403, 404, 409}, statuses  # done, no longer allowed, gone, or the last owner
    async with cursor(identity.pool) as cur:
        assert await queries.count_owners(cur, org.id) >= 1
