"""The gateway: credentials, scopes, tenancy, rate limits and envelopes in front of the services."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import UTC, datetime, timedelta
from functools import partial

from aiohttp import web
from aiohttp_session import session_middleware

from gateway.audit import audit_middleware
from gateway.dashboard.site import mount_dashboard
from gateway.edge.assets import Asset
from gateway.edge.envelope import error_response
from gateway.edge.idempotency import Idempotency
from gateway.edge.idempotency_store import PURGE_SECONDS
from gateway.edge.openapi import render_document
from gateway.edge.ratelimit import SYNC_INTERVAL_SECONDS, RateLimiter
from gateway.edge.replicas import REFRESH_SECONDS, Replicas
from gateway.edge.route_table import ROUTES
from gateway.edge.routes import setup_routes
from gateway.edge.server import GatewayRunner
from gateway.identity.auth.api_keys import LAST_USED_FLUSH_SECONDS, REVOCATION_POLL_SECONDS, ApiKeyStore
from gateway.identity.auth.credentials import Authenticator
from gateway.identity.auth.failures import FailedCredentials
from gateway.identity.auth.session_storage import SessionStorage
from gateway.identity.auth.sessions import SESSION_COOKIE
from gateway.identity.auth.tokens import TokenSigner
from gateway.identity.directory import CHANGES_POLL_SECONDS, Directory
from gateway.identity.oauth import device
from gateway.identity.oauth.device import EXPIRY_SWEEP_SECONDS
from gateway.product_events import PRODUCT_OUTBOX
from gateway.settings import GatewaySettings
from gateway.state import (
    AUTHENTICATOR,
    CLOCK,
    DIRECTORY,
    IDEMPOTENCY,
    KEY_STORE,
    LIMITER,
    OPENAPI_DOCUMENT,
    SEARCH_REPLICAS,
    SIGNER,
    VISITOR_LIMITER,
)
from libs.common.db import db_pool_ctx
from libs.common.encoding import JSON_CONTENT_TYPE
from libs.common.events import identity_events_stream
from libs.common.health import add_health_routes
from libs.common.http_client import http_client_ctx
from libs.common.logs import configure_logging
from libs.common.middlewares import (
    error_middleware,
    internal_auth_middleware,
    observe_middleware,
    request_id_middleware,
    security_headers_middleware,
)
from libs.common.redis_client import attach_redis, create_redis
from libs.common.relay import INTERVAL_SECONDS, OutboxRelay
from libs.common.service import HANDLER_ARGS
from libs.common.state import DB_POOL, REDIS, SETTINGS
from libs.common.tasks import periodic
from libs.common.webhook_outbox import webhook_relay_ctx
from libs.contract.parts import GATEWAY
from libs.contract.route import Route

# A body left unread (a 401 before it was read, a 408) is drained for at most a second before the
# connection closes (aiohttp lingers ten): a client dribbling bytes holds a connection no longer.
GATEWAY_HANDLER_ARGS = {**HANDLER_ARGS, "lingering_time": 1.0}

# aiohttp-session 2.12 stores its storage under a plain string request key, which aiohttp 3.14
# warns about on every request; the key is private to that library and harmless.
warnings.filterwarnings("ignore", category=web.NotAppKeyWarning, module="aiohttp_session")


async def identity_ctx(app: web.Application) -> AsyncIterator[None]:
    """Key store, directory, authenticator and limiter, with their background loops."""
    settings: GatewaySettings = app[SETTINGS]
    pool = app[DB_POOL]
    app[KEY_STORE] = keys = ApiKeyStore(pool, app[CLOCK])
    app[DIRECTORY] = directory = Directory(pool)
    app[LIMITER] = limiter = RateLimiter(
        settings.rate_limit_per_minute, settings.rate_limit_burst, app[REDIS], settings.redis_prefix
    )
    app[VISITOR_LIMITER] = visitors = RateLimiter(
        settings.visitor_requests_per_minute, settings.visitor_requests_burst, app[REDIS], settings.redis_prefix
    )
    failures = FailedCredentials(
        RateLimiter(
            settings.failed_credentials_per_minute, settings.failed_credentials_burst, app[REDIS], settings.redis_prefix
        )
    )
    app[AUTHENTICATOR] = Authenticator(keys, app[SIGNER], directory, failures)
    app[IDEMPOTENCY] = idempotency = Idempotency(pool, app[REDIS], settings.redis_prefix)
    async with (
        periodic(REVOCATION_POLL_SECONDS, keys.drop_revoked, "api-key-revocations"),
        periodic(CHANGES_POLL_SECONDS, directory.drop_changed, "identity-changes"),
        periodic(LAST_USED_FLUSH_SECONDS, keys.flush_last_used, "api-key-last-used"),
        periodic(EXPIRY_SWEEP_SECONDS, partial(device.delete_expired, pool, app[CLOCK]), "device-codes-expiry"),
        periodic(SYNC_INTERVAL_SECONDS, limiter.sync, "rate-limit-sync"),
        periodic(SYNC_INTERVAL_SECONDS, visitors.sync, "visitor-rate-limit-sync"),
        periodic(PURGE_SECONDS, idempotency.answers.purge, "idempotency-keys-purge"),
    ):
        yield
    await keys.flush_last_used()
    await idempotency.answers.drain()


async def product_relay_ctx(app: web.Application) -> AsyncIterator[None]:
    """Every worker runs a relay of product events; the one holding the lock publishes."""
    settings: GatewaySettings = app[SETTINGS]
    relay = OutboxRelay(
        settings.session_database_url,
        settings.db_schema,
        PRODUCT_OUTBOX,
        app[REDIS],
        identity_events_stream(settings.redis_prefix),
    )
    try:
        async with periodic(INTERVAL_SECONDS, relay.step, "product-outbox-relay"):
            yield
    finally:
        await relay.close()


async def search_replicas_ctx(app: web.Application) -> AsyncIterator[None]:
    """Keeps a resolved replica list current (a fixed one needs nothing)."""
    replicas = app[SEARCH_REPLICAS]
    if not replicas.resolves:
        yield
        return
    await replicas.refresh()
    async with periodic(REFRESH_SECONDS, replicas.refresh, "search-replicas"):
        yield


def create_app(
    settings: GatewaySettings,
    routes: tuple[Route, ...] = ROUTES,
    clock: Callable[[], datetime] | None = None,
) -> web.Application:
    signer = TokenSigner(
        settings.jwt_private_key, settings.issuer, settings.jwt_audience, verify_keys=settings.jwt_verify_keys
    )
    redis = create_redis(settings.redis_url)
    sessions = SessionStorage(
        redis,
        cookie_name=SESSION_COOKIE,
        max_age=settings.session_max_age,
        httponly=True,
        samesite="Lax",
        secure=not settings.development,
    )
    middlewares = (
        request_id_middleware,  # first, so every log line and error envelope carries the id
        security_headers_middleware(settings.public_url.startswith("https://")),  # on every answer
        observe_middleware(settings.name),  # sees the final status, including rendered errors
        audit_middleware,  # records changes, refused credentials and sign-ins with their final status
        error_middleware(error_response),  # every exception below becomes an error envelope
        session_middleware(sessions),  # loads the cookie's session only when a handler asks for it
        # The one endpoint parts call (product changes) needs the internal token, as a service's do.
        internal_auth_middleware(
            settings.internal_token_secret, ("/internal/",), *settings.internal_secrets_also_accepted
        ),
    )
    app = web.Application(
        middlewares=middlewares, client_max_size=settings.max_body_bytes, handler_args=GATEWAY_HANDLER_ARGS
    )
    app[SETTINGS] = settings
    app[SIGNER] = signer
    app[CLOCK] = clock or offset_clock(settings.clock_offset_seconds)
    app[OPENAPI_DOCUMENT] = Asset(render_document(routes, settings.public_url), JSON_CONTENT_TYPE)
    app.cleanup_ctx.append(db_pool_ctx)
    attach_redis(app, redis)
    app.cleanup_ctx.extend((http_client_ctx, identity_ctx, product_relay_ctx, webhook_relay_ctx))
    replicas = None
    if settings.search_replicas:
        app[SEARCH_REPLICAS] = replicas = Replicas(settings.search_replicas)
        app.cleanup_ctx.append(search_replicas_ctx)
    add_health_routes(app)
    setup_routes(app, routes, settings.upstreams, replicas)
    mount_dashboard(app)  # last: behind every route above (gateway/dashboard/site.py)
    return app


def offset_clock(seconds: int) -> Callable[[], datetime]:
    """The real time, moved `seconds` ahead (settings allow an offset only in development)."""
    offset = timedelta(seconds=seconds)
    return lambda: datetime.now(UTC) + offset


def load_settings(environ: Mapping[str, str] | None = None) -> GatewaySettings:
    return GatewaySettings.load(GATEWAY, environ)


async def app_factory() -> web.AppRunner:
    """The gunicorn entry point: settings from the environment; served by `GatewayRunner`."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return GatewayRunner(create_app(settings))
