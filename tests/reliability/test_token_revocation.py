"""Revocation reaches access tokens: revoking a grant (with the refresh or the access token, with
or without a hint), reusing a spent refresh token, or changing the password ends the family's
access tokens at every replica within two seconds; a password change ends every session too."""

from __future__ import annotations

import asyncio
import json
import time

from libs.common.db import cursor, fetch_one
from tests.conftest import Client, Stack
from tests.factories import IdentityFactory
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


async def test_revoking_with_the_access_token_ends_it_at_another_replica(
    stack: Stack, oauth: Client, clock: Clock, identity: IdentityFactory
):
    """`aivis logout` revokes with the access token, without a hint."""
    second = await stack.start_gateway()
    try:
        org = await identity.organization()
        _, tokens = await approved_tokens(oauth, clock, identity, org)
        assert (await second.get(RUNS, headers=bearer(tokens["access_token"]))).status == 200
        status, body = await post_form(oauth, "/api/v1/oauth/revoke", client_id=CLI, token=tokens["access_token"])
        assert (status, body) == (200, {})
        assert await seconds_until_refused(second, bearer(tokens["access_token"])) <= PROPAGATION_SECONDS
        status, body = await refresh(oauth, tokens["refresh_token"])  # the whole family is over
        assert (status, body["error"]) == (400, "invalid_grant")
    finally:
        await second.close()


async def test_revoking_the_refresh_token_ends_the_access_tokens_of_the_family(
    stack: Stack, oauth: Client, clock: Clock, identity: IdentityFactory
):
    second = await stack.start_gateway()
    try:
        org = await identity.organization()
        _, first = await approved_tokens(oauth, clock, identity, org)
        status, rotated = await refresh(oauth, first["refresh_token"])
        assert status == 200
        headers = [bearer(first["access_token"]), bearer(rotated["access_token"])]
        for each in headers:
            assert (await second.get(RUNS, headers=each)).status == 200
        status, _ = await post_form(oauth, "/api/v1/oauth/revoke", client_id=CLI, token=rotated["refresh_token"],
                                    token_type_hint="refresh_token")  # fmt: skip
        assert status == 200
        for each in headers:
            assert await seconds_until_refused(second, each) <= PROPAGATION_SECONDS
    finally:
        await second.close()


async def test_reusing_a_spent_refresh_token_ends_the_familys_access_tokens(
    stack: Stack, oauth: Client, clock: Clock, identity: IdentityFactory
):
    second = await stack.start_gateway()
    try:
        org = await identity.organization()
        _, first = await approved_tokens(oauth, clock, identity, org)
        status, rotated = await refresh(oauth, first["refresh_token"])
        assert status == 200
        status, body = await refresh(oauth, first["refresh_token"])  # a spent token: someone else holds the family
        assert (status, body["error"]) == (400, "invalid_grant")
        assert await seconds_until_refused(second, bearer(rotated["access_token"])) <= PROPAGATION_SECONDS
    finally:
        await second.close()


async def test_a_password_change_ends_every_session_and_token_of_the_user(
    stack: Stack, oauth: Client, clock: Clock, identity: IdentityFactory
):
    second = await stack.start_gateway()
    try:
        org = await identity.organization()
        user_id, tokens = await approved_tokens(oauth, clock, identity, org)
        session = json.loads(admin(stack, "create-session", "--user", user_id, "--org", org.slug).stdout)
        minted = json.loads(admin(stack, "mint-token", "--user", user_id, "--org", org.slug).stdout)
        credentials = [bearer(tokens["access_token"]), bearer(minted["token"]), {"Cookie": session["cookie"]}]
        for headers in credentials:
            assert (await second.get(RUNS, headers=headers)).status == 200

        changed = admin(stack, "set-password", "--user", user_id, stdin="a new password\n")
        assert changed.returncode == 0, changed.stderr
        for headers in credentials:
            assert await seconds_until_refused(second, headers) <= PROPAGATION_SECONDS
        status, body = await refresh(oauth, tokens["refresh_token"])
        assert (status, body["error"]) == (400, "invalid_grant")
        async with cursor(identity.pool) as cur:
            row = await fetch_one(
                cur, "SELECT u.email, g.revoked_reason FROM users u JOIN oauth_grants g ON g.user_id = u.id"
                " WHERE u.id = %s", (user_id,),
            )  # fmt: skip
        assert row is not None and row["revoked_reason"] == "password"
        # A sign-in with the new password works at once, on either replica.
        assert (await sign_in(second, row["email"], "a new password")).status == 303
        assert (await second.get(RUNS)).status == 200
    finally:
        await second.close()
