"""Credential resolution: `x-api-key`, then `Authorization: Bearer`, then the session cookie.

The first credential present decides; an invalid one is a 401 even when a later one is valid,
so a client never silently runs as a different principal than the one it meant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import aiohttp_session
from aiohttp import web

from gateway.auth.api_keys import ApiKeyStore, invalid_key, key_prefix
from gateway.auth.scopes import ROLE_SCOPES
from gateway.auth.tokens import TokenSigner, invalid_token
from gateway.directory import Directory
from gateway.identity import Identity
from libs.common.errors import Unauthorized
from libs.common.internal_token import Organization

API_KEY_HEADER = "x-api-key"
SESSION_COOKIE = "app-auth.session_token"


class Authenticator:
    def __init__(self, keys: ApiKeyStore, signer: TokenSigner, directory: Directory) -> None:
        self._keys = keys
        self._signer = signer
        self._directory = directory

    async def identify(self, request: web.Request) -> Identity:
        key = request.headers.get(API_KEY_HEADER)
        if key is not None:
            return await self._by_api_key(key)
        authorization = request.headers.get("Authorization")
        if authorization is not None:
            return await self._by_bearer(authorization)
        if SESSION_COOKIE in request.cookies:
            return await self._by_session(request)
        raise Unauthorized("authentication required")

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
        granted = frozenset(claims["scope"].split())
        member = await self._as_member(claims["sub"], claims["org"], granted, invalid_token)
        return replace(member, credential="bearer")

    async def _by_session(self, request: web.Request) -> Identity:
        session = await aiohttp_session.get_session(request)
        user_id, organization_id = session.get("user_id"), session.get("organization_id")
        if not isinstance(user_id, str) or not isinstance(organization_id, str):
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
