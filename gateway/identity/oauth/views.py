"""The OAuth endpoints. They need no credential and answer in OAuth's shape (protocol.py)."""

from __future__ import annotations

from aiohttp import web

from gateway.audit import AUDIT_ACTION, AUDIT_ACTOR, Actor
from gateway.identity.auth.scopes import ALL_SCOPES
from gateway.identity.oauth import device, grants
from gateway.identity.oauth.clients import client_of
from gateway.identity.oauth.protocol import NO_STORE, OAuthError, oauth_endpoint, read_parameters, required
from gateway.identity.oauth.throttle import DeviceFlowLimits
from gateway.settings import GatewaySettings
from gateway.state import CLOCK, SIGNER
from libs.common.client_address import client_address
from libs.common.db import transaction
from libs.common.encoding import json_response
from libs.common.state import DB_POOL, SETTINGS
from libs.contract.internal import OAUTH
from libs.contract.route import register_handlers

DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
REFRESH_GRANT = "refresh_token"
DEVICE_NAME_LENGTH = 100


def public_url(request: web.Request) -> str:
    """Where people reach the gateway: PUBLIC_URL, which only local development may leave unset
    (then this request's origin). Never the Host header elsewhere: the metadata is cached publicly."""
    settings: GatewaySettings = request.config_dict[SETTINGS]
    return settings.public_url or str(request.url.origin())


def parse_scope(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    scopes = frozenset(text.split())
    unknown = scopes - ALL_SCOPES
    if unknown or not scopes:
        raise OAuthError("invalid_scope", f"unknown scopes: {' '.join(sorted(unknown))}" if unknown else "empty scope")
    return scopes


def parse_device_name(text: str | None) -> str | None:
    """`device_name`, an addition to RFC 8628: how the device calls itself (1-100 printable characters)."""
    if text is None:
        return None
    name = " ".join(text.split())
    if not name or len(name) > DEVICE_NAME_LENGTH or not name.isprintable():
        raise OAuthError("invalid_request", f"device_name must be 1-{DEVICE_NAME_LENGTH} printable characters")
    return name


@oauth_endpoint
async def oauth_device_code(request: web.Request) -> web.Response:
    """POST /api/v1/oauth/device/code: start a device authorization (RFC 8628 §3.1-3.2)."""
    parameters = await read_parameters(request)
    client = client_of(parameters)
    scopes = parse_scope(parameters.get("scope")) or client.default_scopes
    name = parse_device_name(parameters.get("device_name"))
    wait = await DeviceFlowLimits(request.config_dict).reserve_code(client_address(request))
    if wait:
        raise OAuthError(
            "slow_down",
            f"too many device codes from this address; try again in {wait} seconds",
            status=429,
            headers={"Retry-After": str(wait)},
        )
    interval = request.config_dict[SETTINGS].device_poll_interval
    async with transaction(request.app[DB_POOL]) as cur:
        code, row = await device.start(cur, client.client_id, scopes, request.app[CLOCK](), interval, name)
    verification_uri = public_url(request) + OAUTH.device_page
    user_code = device.show_user_code(row["user_code"])
    body = {
        "device_code": code,
        "user_code": user_code,
        "verification_uri": verification_uri,
        "verification_uri_complete": f"{verification_uri}?user_code={user_code}",
        "expires_in": device.EXPIRES_IN_SECONDS,
        "interval": row["poll_interval"],
    }
    return json_response(body, headers=NO_STORE)


@oauth_endpoint
async def oauth_token(request: web.Request) -> web.Response:
    """POST /api/v1/oauth/token: the device-code and refresh-token grants (RFC 8628 §3.4, RFC 6749 §6)."""
    parameters = await read_parameters(request)
    grant_type = required(parameters, "grant_type")
    client = client_of(parameters)
    signer, now = request.app[SIGNER], request.app[CLOCK]()
    async with transaction(request.app[DB_POOL]) as cur:
        if grant_type == DEVICE_CODE_GRANT:
            outcome = await device.poll(cur, signer, client.client_id, required(parameters, "device_code"), now)
        elif grant_type == REFRESH_GRANT:
            refresh_token = required(parameters, "refresh_token")
            requested = parse_scope(parameters.get("scope"))
            outcome = await grants.refresh(cur, signer, client.client_id, refresh_token, requested, now)
        else:
            raise OAuthError("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")
    # Refusals are returned, so what they recorded (a poll, a revoked family) is committed first.
    if isinstance(outcome, OAuthError):
        raise outcome
    return json_response(outcome.body(), headers=NO_STORE)


@oauth_endpoint
async def oauth_revoke(request: web.Request) -> web.Response:
    """POST /api/v1/oauth/revoke: revoke a refresh or access token and its whole grant (RFC 7009).
    The token's kind is found from the token itself; `token_type_hint` is not needed."""
    parameters = await read_parameters(request)
    client = client_of(parameters)
    value = required(parameters, "token")
    async with transaction(request.app[DB_POOL]) as cur:
        revoked = await grants.revoke(cur, request.app[SIGNER], client.client_id, value, request.app[CLOCK]())
    if revoked is None:
        raise OAuthError("unsupported_token_type", "this access token was not issued under a grant; it expires")
    if isinstance(revoked, dict):  # a sign-out: the trail records who ended which device's sign-in
        request[AUDIT_ACTOR] = Actor(
            "bearer", str(revoked["user_id"]), None, str(revoked["organization_id"]), str(revoked["id"])
        )
        request[AUDIT_ACTION] = "device.signed_out"
    # An unknown or already revoked token is not an error (RFC 7009 §2.2).
    return json_response({}, headers=NO_STORE)


async def oauth_metadata(request: web.Request) -> web.Response:
    """GET /.well-known/oauth-authorization-server: the authorization server's metadata (RFC 8414)."""
    base = public_url(request)
    document = {
        "issuer": request.app[SETTINGS].issuer,  # the JWTs' `iss`
        "device_authorization_endpoint": OAUTH.device_authorization.url(base),
        "token_endpoint": OAUTH.token.url(base),
        "revocation_endpoint": OAUTH.revocation.url(base),
        "jwks_uri": f"{base}/.well-known/jwks.json",
        "scopes_supported": sorted(ALL_SCOPES),
        # No authorization endpoint: people approve on the device page, never by redirect.
        "response_types_supported": [],
        "grant_types_supported": [DEVICE_CODE_GRANT, REFRESH_GRANT],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "service_documentation": f"{base}/api/v1/openapi.json",
    }
    return json_response(document, headers={"Cache-Control": "public, max-age=300"})


HANDLERS = (oauth_metadata, oauth_device_code, oauth_token, oauth_revoke)


def setup_oauth_routes(router: web.UrlDispatcher) -> None:
    register_handlers(router, OAUTH.all(), HANDLERS)
