"""Starting a device authorization: its answer, what is stored, and what is refused."""

from __future__ import annotations

import re

import pytest

from gateway.identity.auth.api_keys import hash_key
from gateway.identity.auth.scopes import ALL_SCOPES
from gateway.settings import GatewaySettings
from libs.common.db import cursor
from libs.common.settings import SettingsError
from libs.contract.parts import GATEWAY
from tests.factories import IdentityFactory
from tests.oauth.conftest import CLI, post_form, start_device

USER_CODE = re.compile(r"^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$")


async def test_form_request_answers_codes_and_the_device_page(oauth, identity: IdentityFactory):
    body = await start_device(oauth, scope="content:read simulations:read")
    assert set(body) == {
        "device_code",
        "user_code",
        "verification_uri",
        "verification_uri_complete",
        "expires_in",
        "interval",
    }
    assert USER_CODE.match(body["user_code"])
    origin = str(oauth.make_url("/")).rstrip("/")
    assert body["verification_uri"] == f"{origin}/device"
    assert body["verification_uri_complete"] == f"{origin}/device?user_code={body['user_code']}"
    assert (body["expires_in"], body["interval"]) == (900, 1)  # the tests' DEVICE_POLL_INTERVAL_SECONDS
    async with cursor(identity.pool) as cur:
        await cur.execute(
            "SELECT user_code, requested_scopes, status, expires_at - created_at AS lifetime"
            " FROM device_authorizations WHERE device_code_hash = %s",
            (hash_key(body["device_code"]),),
        )
        stored = await cur.fetchone()
    assert stored["user_code"] == body["user_code"].replace("-", "")
    assert stored["requested_scopes"] == ["content:read", "simulations:read"] and stored["status"] == "pending"
    assert stored["lifetime"].total_seconds() == 900


async def test_json_request_without_scope_asks_for_every_scope(oauth, identity: IdentityFactory):
    response = await oauth.post("/api/v1/oauth/device/code", json={"client_id": CLI})
    assert response.status == 200
    body = await response.json()
    async with cursor(identity.pool) as cur:
        await cur.execute(
            "SELECT cardinality(requested_scopes) AS n FROM device_authorizations WHERE device_code_hash = %s",
            (hash_key(body["device_code"]),),
        )
        assert (await cur.fetchone())["n"] == len(ALL_SCOPES)


async def test_unknown_client_is_invalid_client(oauth):
    status, body = await post_form(oauth, "/api/v1/oauth/device/code", client_id="someone-else")
    assert status == 401
    assert body == {"error": "invalid_client", "error_description": "unknown client 'someone-else'"}


async def test_missing_client_id_is_invalid_request(oauth):
    status, body = await post_form(oauth, "/api/v1/oauth/device/code", scope="content:read")
    assert status == 400
    assert body == {"error": "invalid_request", "error_description": "parameter 'client_id' is required"}


async def test_unknown_scope_is_invalid_scope(oauth):
    status, body = await post_form(oauth, "/api/v1/oauth/device/code", client_id=CLI, scope="content:read root")
    assert status == 400
    assert body == {"error": "invalid_scope", "error_description": "unknown scopes: root"}


async def test_other_content_types_and_repeated_parameters_are_invalid_requests(oauth):
    response = await oauth.post(
        "/api/v1/oauth/device/code", data=b"client_id=aivis-cli", headers={"Content-Type": "text/plain"}
    )
    assert response.status == 400
    assert (await response.json())["error"] == "invalid_request"
    response = await oauth.post("/api/v1/oauth/device/code", data=[("client_id", CLI), ("client_id", CLI)])
    assert response.status == 400
    assert await response.json() == {
        "error": "invalid_request",
        "error_description": "parameter 'client_id' is given more than once",
    }
    response = await oauth.post("/api/v1/oauth/device/code", json={"client_id": CLI, "scope": ["content:read"]})
    assert response.status == 400
    assert (await response.json())["error"] == "invalid_request"


async def test_metadata_describes_the_endpoints(oauth):
    response = await oauth.get("/.well-known/oauth-authorization-server")
    assert response.status == 200
    body = await response.json()
    origin = str(oauth.make_url("/")).rstrip("/")
    assert body["issuer"] == "aivis"  # development without PUBLIC_URL: the development issuer, as in the JWTs
    assert body["device_authorization_endpoint"] == f"{origin}/api/v1/oauth/device/code"
    assert body["token_endpoint"] == f"{origin}/api/v1/oauth/token"
    assert body["revocation_endpoint"] == f"{origin}/api/v1/oauth/revoke"
    assert body["jwks_uri"] == f"{origin}/.well-known/jwks.json"
    assert body["grant_types_supported"] == ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"]
    assert body["token_endpoint_auth_methods_supported"] == ["none"]
    assert "simulations:read" in body["scopes_supported"]


def test_a_device_polls_every_five_seconds_unless_the_deployment_says_otherwise():
    required = {"DATABASE_URL": "postgresql://x@localhost/x", "INTERNAL_TOKEN_SECRET": "s" * 48, "JWT_PRIVATE_KEY": "k"}
    settings = {**required, "PUBLIC_URL": "https://api.example.com"}
    assert GatewaySettings.load(GATEWAY, settings).device_poll_interval == 5  # RFC 8628's default
    assert GatewaySettings.load(GATEWAY, {**settings, "DEVICE_POLL_INTERVAL_SECONDS": "2"}).device_poll_interval == 2
    with pytest.raises(SettingsError, match="DEVICE_POLL_INTERVAL_SECONDS"):
        GatewaySettings.load(GATEWAY, {**settings, "DEVICE_POLL_INTERVAL_SECONDS": "0"})
