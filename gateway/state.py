"""Typed application state of the gateway."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from aiohttp import web

from gateway.edge.assets import Asset
from gateway.edge.idempotency import Idempotency
from gateway.edge.ratelimit import RateLimiter
from gateway.identity.auth.api_keys import ApiKeyStore
from gateway.identity.auth.credentials import Authenticator
from gateway.identity.auth.tokens import TokenSigner
from gateway.identity.directory import Directory

if TYPE_CHECKING:
    from gateway.edge.replicas import Replicas  # which routes through gateway.edge.proxy, which reads this state

KEY_STORE: web.AppKey[ApiKeyStore] = web.AppKey("key_store")
DIRECTORY: web.AppKey[Directory] = web.AppKey("directory")
AUTHENTICATOR: web.AppKey[Authenticator] = web.AppKey("authenticator")
LIMITER: web.AppKey[RateLimiter] = web.AppKey("limiter")
# Dashboard requests of visitors who are not signed in, per client address.
VISITOR_LIMITER: web.AppKey[RateLimiter] = web.AppKey("visitor_limiter")
SIGNER: web.AppKey[TokenSigner] = web.AppKey("signer")
IDEMPOTENCY: web.AppKey[Idempotency] = web.AppKey("idempotency")
OPENAPI_DOCUMENT: web.AppKey[Asset] = web.AppKey("openapi_document")
SEARCH_REPLICAS: web.AppKey[Replicas] = web.AppKey("search_replicas")
# Tests move time forward to see the legacy-routing sunset.
CLOCK: web.AppKey[Callable[[], datetime]] = web.AppKey("clock")
