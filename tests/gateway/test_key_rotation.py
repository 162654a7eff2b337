"""Rotating the bearer-token signing key and the internal-token secret without downtime: a token
minted before a rotation keeps working through it, until the old key or secret is retired."""

from __future__ import annotations

import secrets
import uuid

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)

from gateway.identity.auth.tokens import TokenSigner
from gateway.state import SIGNER
from libs.common.internal_token import HEADER, Caller, Organization, mint
from libs.common.settings import SettingsError
from libs.contract.parts import SIMULATIONS
from tests.conftest import build_app
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


def new_private_key() -> str:
    return Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()


def public_pem(private_pem: str) -> str:
    key = load_pem_private_key(private_pem.encode(), password=None)
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()


async def status_with_bearer(client, token: str) -> int:
    response = await client.get(RUNS, headers={"Authorization": f"Bearer {token}"})
    return response.status


async def test_a_bearer_token_survives_the_signing_key_rotation_until_the_old_key_is_retired(
    stack, identity: IdentityFactory, jwt_private_key: str
):
    org = await identity.organization()
    user = await identity.user(org)
    before = identity.bearer(user, org)  # signed by the current key
    old_key, new_key = jwt_private_key, new_private_key()
    # 1. The new key is announced: every replica verifies with it before any replica signs with it.
    announced = await stack.start_gateway({"JWT_VERIFY_KEYS": public_pem(new_key)})
    # 2. The new key signs; the old one still verifies.
    rotated = await stack.start_gateway({"JWT_PRIVATE_KEY": new_key, "JWT_VERIFY_KEYS": public_pem(old_key)})
    # 3. Once every old token has expired, the old key is retired.
    retired = await stack.start_gateway({"JWT_PRIVATE_KEY": new_key})
    try:
        after = rotated.app[SIGNER].mint(user, org.id, ["simulations:read"])  # signed by the new key
        assert await status_with_bearer(announced, before) == 200
        assert await status_with_bearer(announced, after) == 200  # a replica still at step 1
        assert await status_with_bearer(rotated, before) == 200
        assert await status_with_bearer(rotated, after) == 200
        assert await status_with_bearer(retired, after) == 200
        assert await status_with_bearer(retired, before) == 401
        jwks = await (await rotated.get("/.well-known/jwks.json")).json()
        old_kid, new_kid = identity.signer.kid, rotated.app[SIGNER].kid
        assert new_kid != old_kid
        assert [key["kid"] for key in jwks["keys"]] == [new_kid, old_kid]  # the signing key first
        assert all("d" not in key for key in jwks["keys"])
        retired_jwks = await (await retired.get("/.well-known/jwks.json")).json()
        assert [key["kid"] for key in retired_jwks["keys"]] == [new_kid]
    finally:
        for client in (announced, rotated, retired):
            await client.close()


def test_verify_keys_must_be_ed25519_public_keys(jwt_private_key: str):
    for bad in ("not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"):
        with pytest.raises(SettingsError, match="JWT_VERIFY_KEYS"):
            TokenSigner(jwt_private_key, "aivis", "aivis-api", verify_keys=bad)
    two = public_pem(new_private_key()) + public_pem(new_private_key())
    assert len(TokenSigner(jwt_private_key, "aivis", "aivis-api", verify_keys=two).jwks["keys"]) == 3


async def test_an_internal_token_survives_the_secret_rotation_until_the_old_secret_is_retired(stack, aiohttp_client):
    old, new = stack.environ["INTERNAL_TOKEN_SECRET"], secrets.token_urlsafe(48)
    caller = Caller(
        "api_key", "key-1", Organization(str(uuid.uuid4()), "acme", "Acme"), frozenset({"simulations:read"})
    )
    before, after = mint(old, caller), mint(new, caller)
    # 1. Every part accepts the new secret; 2. the new one signs, the old one is still accepted;
    # 3. the old one is retired once no token signed with it can be alive (a minute).
    phases = (
        ({"INTERNAL_TOKEN_SECRET": old, "INTERNAL_TOKEN_OVERLAP_SECRET": new}, [200, 200]),
        ({"INTERNAL_TOKEN_SECRET": new, "INTERNAL_TOKEN_OVERLAP_SECRET": old}, [200, 200]),
        ({"INTERNAL_TOKEN_SECRET": new}, [401, 200]),
    )
    for secrets_of_phase, statuses in phases:
        client = await aiohttp_client(build_app(SIMULATIONS, stack.part_environ(SIMULATIONS, **secrets_of_phase)))
        answers = [(await client.get(RUNS, headers={HEADER: token})).status for token in (before, after)]
        assert answers == statuses, secrets_of_phase.keys()


async def test_a_service_accepts_both_secrets_during_the_overlap(stack, aiohttp_client):
    old, new = stack.environ["INTERNAL_TOKEN_SECRET"], secrets.token_urlsafe(48)
    environ = stack.part_environ(SIMULATIONS, INTERNAL_TOKEN_SECRET=new, INTERNAL_TOKEN_OVERLAP_SECRET=old)
    client = await aiohttp_client(build_app(SIMULATIONS, environ))
    caller = Caller(
        "api_key", "key-1", Organization(str(uuid.uuid4()), "acme", "Acme"), frozenset({"simulations:read"})
    )
    for secret, status in ((old, 200), (new, 200), ("x" * 48, 401)):
        response = await client.get(RUNS, headers={HEADER: mint(secret, caller)})
        assert response.status == status, await response.text()
