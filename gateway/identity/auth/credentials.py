"""Credential resolution: `x-api-key`, then `Authorization: Bearer`, then the session cookie.

The first credential present decides; an invalid one is a 401 even when a later one is valid,
and one sent twice is a 401 whatever the values, so a client never silently runs as a
different principal than the one it meant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import aiohttp_session
from aiohttp import web

from gateway.identity import Identity
from gateway.identity.auth.api_keys import ApiKeyStore, invalid_key, key_prefix
from gateway.identity.auth.failures import FailedCredentials
from gateway.identity.auth.scopes import ROLE_SCOPES
from gateway.identity.auth.sessions import SESSION_COOKIE, opened_at
from gateway.identity.auth.tokens import TokenSigner, invalid_token
from gateway.identity.directory import Directory
from libs.common.client_address import client_address
from libs.common.errors import Unauthorized
from libs.common.internal_token import Organization

API_KEY_HEADER = "x-api-key"


class Authenticator:
    def __init__(
        self, keys: ApiKeyStore, signer: TokenSigner, directory: Directory, failures: FailedCredentials
    ) -> None:
        self._keys = keys
        self._signer = signer
        self._directory = directory
        self._failures = failures

    async def identify(self, request: web.Request) -> Identity:
        """The caller; 401 for a bad credential, 429 for one from an address that sent too many."""
        if not (
            API_KEY_HEADER in request.headers or "Authorization" in request.headers or SESSION_COOKIE in request.cookies
        ):
            raise Unauthorized("authentication required")
        try:
            return await self._resolve(request)
        except Unauthorized:
            await self._failures.record(client_address(request))
            raise

    async def _resolve(self, request: web.Request) -> Identity:
        _refuse_repeated_credentials(request)
        key = request.headers.get(API_KEY_HEADER)
        if key is not None:
            return await self._by_api_key(key)
        authorization = request.headers.get("Authorization")
        if authorization is not None:
            return await self._by_bearer(authorization)
        return await self._by_session(request)

    async def _by_api_key(self, key: str) -> Identity:
        record = await self._keys.authenticate(key)
        organization = await self._directory.organization(record.organization_id)
        if organization is None:
            raise invalid_key()
        return Identity(
            "api_key", record.id, organization, record.scopes, rate_key=f"key:{record.id}", key_prefix=key_prefix(key)
        )

    async def _by_bearer(self, authorization: str) -> Identity:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("unsupported authorization scheme: use Bearer")
        claims = self._signer.verify(token.strip())
        grant_id = claims.get("gid")
        if grant_id is not None and await self._directory.grant_revoked(grant_id):
            raise invalid_token()
        if claims["iat"] <= await self._directory.credentials_revoked_at(claims["sub"]):
            raise invalid_token()
        granted = frozenset(claims["scope"].split())
        member = await self._as_member(claims["sub"], claims["org"], granted, invalid_token)
        return replace(member, credential="bearer", grant_id=grant_id)

    async def _by_session(self, request: web.Request) -> Identity:
        session = await aiohttp_session.get_session(request)
        user_id, organization_id = session.get("user_id"), session.get("organization_id")
        if not isinstance(user_id, str) or not isinstance(organization_id, str):
            raise Unauthorized("invalid session")
        if opened_at(session) <= await self._directory.credentials_revoked_at(user_id):
            raise Unauthorized("invalid session")
        member = await self._as_member(user_id, organization_id, None, lambda: Unauthorized("invalid session"))
        return replace(member, credential="session")

    async def _as_member(
        self, user_id: str, organization_id: str, granted: frozenset[str] | None, refuse: Callable[[], Unauthorized]
    ) -> Identity:
        """A user acting in an organization: allowed what the role allows (and the token grants)."""
        role = await self._directory.role(user_id, organization_id)
        organization: Organization | None = None
        if role is not None:
            organization = await self._directory.organization(organization_id)
        if role is None or organization is None:
            raise refuse()
        scopes = ROLE_SCOPES[role] if granted is None else ROLE_SCOPES[role] & granted
        return Identity("user", user_id, organization, scopes, rate_key=f"user:{user_id}:{organization_id}")


def _refuse_repeated_credentials(request: web.Request) -> None:
    """A credential sent twice is ambiguous: 401, rather than picking one (a proxy adding a
    header, or a cookie set for two paths, would otherwise decide who the caller is)."""
    for header in (API_KEY_HEADER, "Authorization"):
        if len(request.headers.getall(header, ())) > 1:
            raise Unauthorized(f"more than one {header} header")
    cookies = [
        pair.partition("=")[0].strip() for header in request.headers.getall("Cookie", ()) for pair in header.split(";")
    ]
    if cookies.count(SESSION_COOKIE) > 1:
        raise Unauthorized(f"more than one {SESSION_COOKIE} cookie")
