"""Refresh tokens: rotated on every use, a spent one revokes its family, revocation, membership."""

from __future__ import annotations

from gateway.identity.auth.api_keys import hash_key
from libs.common.db import cursor, transaction
from tests.factories import IdentityFactory
from tests.oauth.conftest import CLI, Clock, approved_tokens, post_form, refresh

RUNS = "/api/v1/agent-simulation/runs"


async def grant_state(identity: IdentityFactory, refresh_token: str) -> tuple[str | None, int]:
    """The revocation reason of the token's grant and how many tokens the family holds."""
    async with cursor(identity.pool) as cur:
        await cur.execute(
            "SELECT g.revoked_reason, (SELECT count(*) FROM refresh_tokens f WHERE f.grant_id = g.id) AS tokens"
            " FROM refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = %s",
            (hash_key(refresh_token),),
        )
        row = await cur.fetchone()
    return row["revoked_reason"], row["tokens"]


async def test_refresh_rotates_both_tokens(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    _, first = await approved_tokens(oauth, clock, identity, org)
    status, second = await refresh(oauth, first["refresh_token"])
    assert status == 200, second
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    assert second["scope"] == first["scope"]
    assert await grant_state(identity, second["refresh_token"]) == (None, 2)
    response = await oauth.get(RUNS, headers={"Authorization": f"Bearer {second['access_token']}"})
    assert response.status == 200


async def test_reusing_a_spent_refresh_token_revokes_the_family(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    _, first = await approved_tokens(oauth, clock, identity, org)
    _, second = await refresh(oauth, first["refresh_token"])
    status, body = await refresh(oauth, first["refresh_token"])
    assert status == 400
    assert body == {
        "error": "invalid_grant",
        "error_description": "the refresh token was already used; its grant is revoked, sign in again",
    }
    assert await grant_state(identity, second["refresh_token"]) == ("reused", 2)
    status, body = await refresh(oauth, second["refresh_token"])
    assert (status, body["error"]) == (400, "invalid_grant")
    assert body["error_description"] == "the refresh token's grant has been revoked; sign in again"


async def test_revocation_ends_the_grant(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    _, tokens = await approved_tokens(oauth, clock, identity, org)
    status, body = await post_form(
        oauth, "/api/v1/oauth/revoke", client_id=CLI, token=tokens["refresh_token"], token_type_hint="refresh_token"
    )
    assert (status, body) == (200, {})
    assert (await grant_state(identity, tokens["refresh_token"]))[0] == "revoked"
    status, body = await refresh(oauth, tokens["refresh_token"])
    assert (status, body["error"]) == (400, "invalid_grant")


async def test_revoking_an_unknown_token_succeeds_and_an_access_token_revokes_its_grant(oauth, clock, identity):
    status, body = await post_form(oauth, "/api/v1/oauth/revoke", client_id=CLI, token="avr_unknown")
    assert (status, body) == (200, {})
    status, body = await post_form(oauth, "/api/v1/oauth/revoke", client_id=CLI, token="not.a.jwt")
    assert (status, body) == (200, {})
    org = await identity.organization()
    for hint in ({"token_type_hint": "access_token"}, {}):
        _, tokens = await approved_tokens(oauth, clock, identity, org)
        status, body = await post_form(
            oauth, "/api/v1/oauth/revoke", client_id=CLI, token=tokens["access_token"], **hint
        )
        assert (status, body) == (200, {})
        assert (await grant_state(identity, tokens["refresh_token"]))[0] == "revoked"


async def test_an_access_token_issued_outside_a_grant_cannot_be_revoked(oauth, identity: IdentityFactory):
    org = await identity.organization()
    minted = identity.signer.mint(await identity.user(org), org.id, ["simulations:read"])
    status, body = await post_form(oauth, "/api/v1/oauth/revoke", client_id=CLI, token=minted)
    assert status == 400
    assert body["error"] == "unsupported_token_type"


async def test_a_narrowed_family_never_widens_again(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    _, tokens = await approved_tokens(oauth, clock, identity, org)
    status, narrowed = await post_form(
        oauth,
        "/api/v1/oauth/token",
        grant_type="refresh_token",
        client_id=CLI,
        refresh_token=tokens["refresh_token"],
        scope="content:read",
    )
    assert (status, narrowed["scope"]) == (200, "content:read")
    wider = "content:read content:write"
    status, body = await post_form(
        oauth,
        "/api/v1/oauth/token",
        grant_type="refresh_token",
        client_id=CLI,
        refresh_token=narrowed["refresh_token"],
        scope=wider,
    )
    assert (status, body["error"]) == (400, "invalid_scope")
    status, body = await refresh(oauth, narrowed["refresh_token"])  # no scope: the family's, narrowed
    assert (status, body["scope"]) == (200, "content:read")


async def test_a_user_removed_from_the_organization_cannot_refresh(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    user_id, tokens = await approved_tokens(oauth, clock, identity, org)
    async with transaction(identity.pool) as cur:
        await cur.execute("DELETE FROM memberships WHERE user_id = %s AND organization_id = %s", (user_id, org.id))
    status, body = await refresh(oauth, tokens["refresh_token"])
    assert status == 400
    assert body == {"error": "invalid_grant", "error_description": "the user is no longer a member of the organization"}
    assert (await grant_state(identity, tokens["refresh_token"]))[0] == "membership"


async def test_a_demoted_user_refreshes_to_read_scopes(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    user_id, tokens = await approved_tokens(oauth, clock, identity, org)
    assert "content:write" in tokens["scope"].split()
    async with transaction(identity.pool) as cur:
        await cur.execute("UPDATE memberships SET role = 'viewer' WHERE user_id = %s", (user_id,))
    status, body = await refresh(oauth, tokens["refresh_token"])
    assert status == 200
    assert all(scope.endswith(":read") for scope in body["scope"].split())


async def test_expired_refresh_token_is_refused(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    _, tokens = await approved_tokens(oauth, clock, identity, org)
    clock.advance(31 * 24 * 3600)
    status, body = await refresh(oauth, tokens["refresh_token"])
    assert status == 400
    assert body == {"error": "invalid_grant", "error_description": "the refresh token has expired; sign in again"}
