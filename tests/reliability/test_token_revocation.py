"""Revocation reaches access tokens: revoking a grant (with the refresh or the access token, with
or without a hint), reusing a spent refresh token, or changing the password ends the family's
access tokens at every replica within two seconds; a password change ends every session too."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import pytest

from libs.common.db import cursor, fetch_one
from tests.conftest import Client, Stack
from tests.factories import IdentityFactory, Org
from tests.gateway.dashboard_client import sign_in
from tests.gateway.test_admin_passwords import admin
from tests.oauth.conftest import CLI, Clock, approved_tokens, post_form, refresh

RUNS = "/api/v1/agent-simulation/runs"
PROPAGATION_SECONDS = 2.0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def seconds_until_refused(replica: Client, headers: dict[str, str], limit: float = 10.0) -> float:
    """How long after now `replica` starts answering 401 to `headers` (it answers 200 until then)."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        response = await replica.get(RUNS, headers=headers)
        if response.status == 401:
            return time.monotonic() - started
        assert response.status == 200, await response.text()
        await asyncio.sleep(0.05)
    raise AssertionError(f"still accepted after {limit}s")


async def accepted(replica: Client, *credentials: dict[str, str]) -> None:
    for headers in credentials:
        assert (await replica.get(RUNS, headers=headers)).status == 200


async def refused_in_time(replica: Client, *credentials: dict[str, str]) -> None:
    for headers in credentials:
        assert await seconds_until_refused(replica, headers) <= PROPAGATION_SECONDS


@pytest.fixture
async def second(stack: Stack) -> AsyncIterator[Client]:
    """Another gateway replica on the same stack: where the revocation must arrive."""
    replica = await stack.start_gateway()
    yield replica
    await replica.close()


class Family(NamedTuple):
    """A user of a new organization and the first tokens of its grant (an approved device flow)."""

    org: Org
    user_id: str
    tokens: dict[str, Any]


@pytest.fixture
async def family(oauth: Client, clock: Clock, identity: IdentityFactory) -> Family:
    org = await identity.organization()
    return Family(org, *await approved_tokens(oauth, clock, identity, org))


async def test_revoking_with_the_access_token_ends_it_at_another_replica(oauth: Client, second: Client, family: Family):
    """`aivis logout` revokes with the access token, without a hint."""
    tokens = family.tokens
    await accepted(second, bearer(tokens["access_token"]))
    status, body = await post_form(oauth, "/api/v1/oauth/revoke", client_id=CLI, token=tokens["access_token"])
    assert (status, body) == (200, {})
    await refused_in_time(second, bearer(tokens["access_token"]))
    status, body = await refresh(oauth, tokens["refresh_token"])  # the whole family is over
    assert (status, body["error"]) == (400, "invalid_grant")


async def test_revoking_the_refresh_token_ends_the_access_tokens_of_the_family(
    oauth: Client, second: Client, family: Family
):
    first = family.tokens
    status, rotated = await refresh(oauth, first["refresh_token"])
    assert status == 200
    headers = [bearer(first["access_token"]), bearer(rotated["access_token"])]
    await accepted(second, *headers)
    status, _ = await post_form(
        oauth, "/api/v1/oauth/revoke", client_id=CLI, token=rotated["refresh_token"], token_type_hint="refresh_token"
    )
    assert status == 200
    await refused_in_time(second, *headers)


async def test_reusing_a_spent_refresh_token_ends_the_familys_access_tokens(
    oauth: Client, second: Client, family: Family
):
    first = family.tokens
    status, rotated = await refresh(oauth, first["refresh_token"])
    assert status == 200
    status, body = await refresh(oauth, first["refresh_token"])  # a spent token: someone else holds the family
    assert (status, body["error"]) == (400, "invalid_grant")
    await refused_in_time(second, bearer(rotated["access_token"]))


async def test_a_password_change_ends_every_session_and_token_of_the_user(
    stack: Stack, oauth: Client, second: Client, identity: IdentityFactory, family: Family
):
    user_id, tokens, slug = family.user_id, family.tokens, family.org.slug
    session = json.loads(admin(stack, "create-session", "--user", user_id, "--org", slug).stdout)
    minted = json.loads(admin(stack, "mint-token", "--user", user_id, "--org", slug).stdout)
    credentials = [bearer(tokens["access_token"]), bearer(minted["token"]), {"Cookie": session["cookie"]}]
    await accepted(second, *credentials)

    changed = admin(stack, "set-password", "--user", user_id, stdin="a new password\n")
    assert changed.returncode == 0, changed.stderr
    await refused_in_time(second, *credentials)
    status, body = await refresh(oauth, tokens["refresh_token"])
    assert (status, body["error"]) == (400, "invalid_grant")
    async with cursor(identity.pool) as cur:
        row = await fetch_one(
            cur,
            "SELECT u.email, g.revoked_reason FROM users u JOIN oauth_grants g ON g.user_id = u.id WHERE u.id = %s",
            (user_id,),
        )
    assert row is not None and row["revoked_reason"] == "password"
    # A sign-in with the new password works at once, on either replica.
    assert (await sign_in(second, row["email"], "a new password")).status == 303
    assert (await second.get(RUNS)).status == 200
