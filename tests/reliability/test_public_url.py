"""The OAuth issuer and every link the gateway gives come from PUBLIC_URL outside development,
never from the Host header (the metadata is cached publicly: one forged Host would poison it)."""

from __future__ import annotations

import jwt
import pytest

from gateway.settings import GatewaySettings
from gateway.state import SIGNER
from libs.common.settings import SettingsError
from libs.contract.parts import GATEWAY
from tests.conftest import Stack

PUBLIC = "https://api.example.com"
SETTINGS = {"DATABASE_URL": "postgresql://x@localhost/x", "INTERNAL_TOKEN_SECRET": "s" * 48, "JWT_PRIVATE_KEY": "k"}


async def test_a_forged_host_changes_nothing_in_the_metadata_or_the_device_link(stack: Stack):
    gateway = await stack.start_gateway({"ENVIRONMENT": "production", "PUBLIC_URL": PUBLIC + "/"})
    try:
        response = await gateway.get("/.well-known/oauth-authorization-server", headers={"Host": "evil.example"})
        assert response.status == 200
        body = await response.json()
        assert body["issuer"] == PUBLIC
        for name in ("device_authorization_endpoint", "token_endpoint", "revocation_endpoint", "jwks_uri"):
            assert body[name].startswith(PUBLIC + "/"), (name, body[name])
        started = await gateway.post(
            "/api/v1/oauth/device/code", data={"client_id": "aivis-cli"}, headers={"Host": "evil.example"}
        )
        assert (await started.json())["verification_uri"] == f"{PUBLIC}/device"
        # The JWTs' `iss` is the metadata's issuer.
        token = gateway.server.app[SIGNER].mint("u", "o", ["content:read"])
        assert jwt.decode(token, options={"verify_signature": False})["iss"] == body["issuer"]
    finally:
        await gateway.close()


def test_public_url_is_required_outside_development():
    with pytest.raises(SettingsError, match="PUBLIC_URL is required outside ENVIRONMENT=development"):
        GatewaySettings.load(GATEWAY, SETTINGS)
    with pytest.raises(SettingsError, match="PUBLIC_URL must be an http"):
        GatewaySettings.load(GATEWAY, {**SETTINGS, "PUBLIC_URL": "api.example.com"})
    assert GatewaySettings.load(GATEWAY, {**SETTINGS, "PUBLIC_URL": PUBLIC}).issuer == PUBLIC
    assert GatewaySettings.load(GATEWAY, {**SETTINGS, "ENVIRONMENT": "development"}).public_url == ""
