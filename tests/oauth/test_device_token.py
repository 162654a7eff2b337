"""Polling the token endpoint with a device code: every answer RFC 8628 §3.5 names."""

from __future__ import annotations

import jwt

from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import signed_in
from tests.oauth.conftest import Clock, decide, poll, post_form, start_device

RUNS = "/api/v1/agent-simulation/runs"


async def test_undecided_code_is_authorization_pending(oauth, clock: Clock):
    started = await start_device(oauth)
    clock.advance(5)
    status, body = await poll(oauth, started["device_code"])
    assert status == 400
    assert body == {"error": "authorization_pending", "error_description": "the user has not decided yet"}


async def test_polling_too_soon_is_slow_down_and_the_interval_grows_by_five_seconds(oauth, clock: Clock):
    started = await start_device(oauth)
    interval = started["interval"]
    clock.advance(interval - 1)
    status, body = await poll(oauth, started["device_code"])
    assert (status, body["error"]) == (400, "slow_down")
    assert body["error_description"] == f"poll at most every {interval + 5} seconds"
    # Now interval + 5 apply: interval + 1 later is still too soon, and the interval grows again.
    clock.advance(interval + 1)
    assert (await poll(oauth, started["device_code"]))[1]["error"] == "slow_down"
    clock.advance(interval + 9)
    assert (await poll(oauth, started["device_code"]))[1]["error"] == "slow_down"
    clock.advance(interval + 15)
    assert (await poll(oauth, started["device_code"]))[1]["error"] == "authorization_pending"


async def test_denied_code_is_access_denied(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    started = await start_device(oauth)
    await decide(oauth, identity, org, "owner", started["user_code"], "deny")
    clock.advance(5)
    status, body = await poll(oauth, started["device_code"])
    assert status == 400
    assert body == {"error": "access_denied", "error_description": "the user denied the request"}


async def test_code_past_fifteen_minutes_is_expired_token(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    started = await start_device(oauth)
    clock.advance(900)
    status, body = await poll(oauth, started["device_code"])
    assert (status, body["error"]) == (400, "expired_token")
    # Too late to approve as well: the device page no longer knows the code.
    email, password = await identity.account((org, "owner"))
    await signed_in(oauth, email, password)
    response = await oauth.get(f"/device?user_code={started['user_code']}")
    assert response.status == 404
    assert "older than 15 minutes" in await response.text()


async def test_approved_code_answers_tokens_the_gateway_accepts(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    started = await start_device(oauth, scope="simulations:read content:read")
    user_id = await decide(oauth, identity, org, "owner", started["user_code"], "approve")
    clock.advance(5)
    status, body = await poll(oauth, started["device_code"])
    assert status == 200, body
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600
    assert body["scope"] == "content:read simulations:read"
    assert body["refresh_token"].startswith("avr_")
    assert body["organization"] == {"id": org.id, "slug": org.slug, "name": org.name}
    assert body["user"]["id"] == user_id
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert (claims["sub"], claims["org"], claims["scope"]) == (user_id, org.id, "content:read simulations:read")
    assert claims["exp"] - claims["iat"] <= 3600
    response = await oauth.get(RUNS, headers={"Authorization": f"Bearer {body['access_token']}"})
    assert response.status == 200
    assert await response.json() == {"ok": True, "data": {"runs": [], "total": 0}}


async def test_a_code_is_redeemed_once(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    started = await start_device(oauth)
    await decide(oauth, identity, org, "owner", started["user_code"], "approve")
    clock.advance(5)
    assert (await poll(oauth, started["device_code"]))[0] == 200
    clock.advance(5)
    status, body = await poll(oauth, started["device_code"])
    assert status == 400
    assert body == {"error": "invalid_grant", "error_description": "the device code has already been used"}


async def test_viewer_approval_grants_read_scopes_only(oauth, clock: Clock, identity: IdentityFactory):
    org = await identity.organization()
    started = await start_device(oauth, scope="content:read content:write simulations:read")
    await decide(oauth, identity, org, "viewer", started["user_code"], "approve")
    clock.advance(5)
    status, body = await poll(oauth, started["device_code"])
    assert status == 200
    assert body["scope"] == "content:read simulations:read"


async def test_unknown_device_code_and_grant_type_are_refused(oauth):
    status, body = await poll(oauth, "not-a-code")
    assert status == 400
    assert body == {"error": "invalid_grant", "error_description": "unknown device code"}
    status, body = await post_form(oauth, "/api/v1/oauth/token", grant_type="password", client_id="aivis-cli")
    assert status == 400
    assert body == {"error": "unsupported_grant_type", "error_description": "grant_type 'password' is not supported"}
    status, body = await post_form(
        oauth, "/api/v1/oauth/token", grant_type="refresh_token", client_id="nobody", refresh_token="avr_x"
    )
    assert (status, body["error"]) == (401, "invalid_client")
