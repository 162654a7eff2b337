"""Each credential is accepted; every defect of one is a 401 envelope; the first one present decides."""

from __future__ import annotations

import base64
import json
import time
from datetime import UTC, datetime, timedelta

import jwt

from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


def assert_unauthorized(status: int, body: dict, message: str | None = None) -> None:
    assert status == 401
    assert body["ok"] is False
    assert body["code"] == "UNAUTHORIZED"
    if message is not None:
        assert body["message"] == message


async def get_runs(gateway, **kwargs):
    response = await gateway.get(RUNS, **kwargs)
    return response.status, await response.json()


async def test_api_key_is_accepted(gateway, identity: IdentityFactory):
    org = await identity.organization()
    status, body = await get_runs(gateway, headers={"x-api-key": await identity.api_key(org)})
    assert status == 200
    assert body == {"ok": True, "data": {"runs": [], "total": 0}}


async def test_bearer_token_is_accepted(gateway, identity: IdentityFactory):
    org = await identity.organization()
    token = identity.bearer(await identity.user(org), org)
    status, body = await get_runs(gateway, headers={"Authorization": f"Bearer {token}"})
    assert status == 200
    assert body["ok"] is True


async def test_session_cookie_is_accepted(gateway, identity: IdentityFactory):
    org = await identity.organization()
    cookie = await identity.session(await identity.user(org), org)
    status, body = await get_runs(gateway, headers={"Cookie": f"app-auth.session_token={cookie}"})
    assert status == 200
    assert body["ok"] is True


async def test_no_credential_is_401(gateway):
    status, body = await get_runs(gateway)
    assert_unauthorized(status, body, "authentication required")


async def test_unknown_api_key_is_invalid_api_key(gateway):
    status, body = await get_runs(gateway, headers={"x-api-key": "avk_00000000_" + "x" * 43})
    assert_unauthorized(status, body, "invalid api key")


async def test_malformed_and_empty_api_keys_are_invalid_api_key(gateway):
    for value in ("", "not-a-key", "avk_" + "a" * 300):
        status, body = await get_runs(gateway, headers={"x-api-key": value})
        assert_unauthorized(status, body, "invalid api key")


async def test_revoked_api_key_is_invalid_api_key(gateway, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    await identity.revoke(key[:12])
    status, body = await get_runs(gateway, headers={"x-api-key": key})
    assert_unauthorized(status, body, "invalid api key")


async def test_expired_api_key_is_invalid_api_key(gateway, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org, expires_at=datetime.now(UTC) - timedelta(seconds=1))
    status, body = await get_runs(gateway, headers={"x-api-key": key})
    assert_unauthorized(status, body, "invalid api key")


async def test_invalid_api_key_wins_over_a_valid_bearer_token(gateway, identity: IdentityFactory):
    org = await identity.organization()
    token = identity.bearer(await identity.user(org), org)
    headers = {"x-api-key": "avk_bogus", "Authorization": f"Bearer {token}"}
    status, body = await get_runs(gateway, headers=headers)
    assert_unauthorized(status, body, "invalid api key")


async def test_api_key_wins_over_bearer_and_session(gateway, identity: IdentityFactory, simulations):
    key_org, token_org = await identity.organization(), await identity.organization()
    environment = await simulations.environment(key_org)
    await simulations.run(key_org, environment)
    user = await identity.user(token_org)
    headers = {
        "x-api-key": await identity.api_key(key_org),
        "Authorization": f"Bearer {identity.bearer(user, token_org)}",
        "Cookie": f"app-auth.session_token={await identity.session(user, token_org)}",
    }
    status, body = await get_runs(gateway, headers=headers)
    assert status == 200
    assert body["data"]["total"] == 1  # the key's organization, not the token's


async def test_bearer_wins_over_session(gateway, identity: IdentityFactory):
    org = await identity.organization()
    user = await identity.user(org)
    cookie = await identity.session(user, org)
    headers = {"Authorization": "Bearer not.a.token", "Cookie": f"app-auth.session_token={cookie}"}
    status, body = await get_runs(gateway, headers=headers)
    assert_unauthorized(status, body, "invalid bearer token")


async def test_expired_bearer_token_is_401(gateway, identity: IdentityFactory):
    org = await identity.organization()
    token = identity.bearer(await identity.user(org), org, ttl=-10)
    status, body = await get_runs(gateway, headers={"Authorization": f"Bearer {token}"})
    assert_unauthorized(status, body, "invalid bearer token")


async def test_token_signed_by_another_key_is_401(gateway, identity: IdentityFactory, jwt_private_key):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    org = await identity.organization()
    user = await identity.user(org)
    claims = {
        "iss": "aivis",
        "aud": "aivis-api",
        "sub": user,
        "org": org.id,
        "scope": "simulations:read",
        "iat": int(time.time()),
        "exp": int(time.time()) + 600,
    }
    forged = jwt.encode(claims, Ed25519PrivateKey.generate(), algorithm="EdDSA", headers={"kid": identity.signer.kid})
    status, body = await get_runs(gateway, headers={"Authorization": f"Bearer {forged}"})
    assert_unauthorized(status, body, "invalid bearer token")


async def test_hs256_token_keyed_with_the_public_key_is_401(gateway, identity: IdentityFactory):
    org = await identity.organization()
    user = await identity.user(org)
    public_x = identity.signer.jwks["keys"][0]["x"]
    claims = {
        "iss": "aivis",
        "aud": "aivis-api",
        "sub": user,
        "org": org.id,
        "scope": "simulations:read",
        "iat": int(time.time()),
        "exp": int(time.time()) + 600,
    }
    forged = jwt.encode(claims, public_x, algorithm="HS256", headers={"kid": identity.signer.kid})
    status, body = await get_runs(gateway, headers={"Authorization": f"Bearer {forged}"})
    assert_unauthorized(status, body, "invalid bearer token")


def _unsigned(header: dict, claims: dict) -> str:
    encode = lambda part: base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()  # noqa: E731
    return f"{encode(header)}.{encode(claims)}."


async def test_alg_none_token_is_401(gateway, identity: IdentityFactory):
    org = await identity.organization()
    user = await identity.user(org)
    claims = {
        "iss": "aivis",
        "aud": "aivis-api",
        "sub": user,
        "org": org.id,
        "scope": "simulations:read",
        "iat": int(time.time()),
        "exp": int(time.time()) + 600,
    }
    token = _unsigned({"alg": "none", "typ": "JWT", "kid": identity.signer.kid}, claims)
    status, body = await get_runs(gateway, headers={"Authorization": f"Bearer {token}"})
    assert_unauthorized(status, body, "invalid bearer token")


async def test_token_with_wrong_audience_or_issuer_is_401(gateway, identity: IdentityFactory, jwt_private_key):
    from gateway.identity.auth.tokens import TokenSigner

    org = await identity.organization()
    user = await identity.user(org)
    for issuer, audience in (("aivis", "someone-else"), ("someone-else", "aivis-api")):
        token = TokenSigner(jwt_private_key, issuer, audience).mint(user, org.id, ["simulations:read"])
        status, body = await get_runs(gateway, headers={"Authorization": f"Bearer {token}"})
        assert_unauthorized(status, body, "invalid bearer token")


async def test_token_of_a_user_no_longer_member_is_401(gateway, identity: IdentityFactory):
    org, other = await identity.organization(), await identity.organization()
    user = await identity.user(other)
    status, body = await get_runs(gateway, headers={"Authorization": f"Bearer {identity.bearer(user, org)}"})
    assert_unauthorized(status, body, "invalid bearer token")


async def test_basic_authorization_is_401(gateway):
    status, body = await get_runs(gateway, headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert_unauthorized(status, body)


async def test_unknown_session_is_401(gateway):
    status, body = await get_runs(gateway, headers={"Cookie": "app-auth.session_token=0123456789abcdef"})
    assert_unauthorized(status, body, "invalid session")


async def test_jwks_publishes_the_verifying_key(gateway, identity: IdentityFactory):
    response = await gateway.get("/.well-known/jwks.json")
    assert response.status == 200
    body = await response.json()
    assert body["keys"][0]["kid"] == identity.signer.kid
    assert body["keys"][0]["alg"] == "EdDSA"
    assert "d" not in body["keys"][0]  # never the private part
