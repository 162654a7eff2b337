"""What every service's `create_app` has in common, so each service states only what differs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable

from aiohttp import web

from libs.common.db import db_pool_ctx
from libs.common.encoding import json_response
from libs.common.errors import ApiError
from libs.common.health import add_health_routes
from libs.common.http_client import http_client_ctx
from libs.common.middlewares import (
    error_middleware,
    internal_auth_middleware,
    observe_middleware,
    request_id_middleware,
)
from libs.common.redis_client import attach_redis, create_redis
from libs.common.settings import ServiceSettings
from libs.common.state import SETTINGS

CleanupContext = Callable[[web.Application], AsyncIterator[None]]

MAX_BODY_BYTES = 1024 * 1024
# aiohttp's default request-line limit (8 KiB) is below the longest URL the contract allows: a
# 2,048-character path in a query string takes up to 12 bytes a character once percent-encoded.
HANDLER_ARGS = {"max_line_size": 32 * 1024}


def render_plain_error(error: ApiError) -> web.Response:
    """Services answer errors as plain `{code, message, details?}`; the gateway adds the envelope."""
    return json_response(error.to_dict(), status=error.status, headers=error.headers)


def create_service_app(
    settings: ServiceSettings,
    setup_routes: Callable[[web.Application], None],
    *,
    uses_redis: bool = False,
    cleanup_contexts: Iterable[CleanupContext] = (),
) -> web.Application:
    """An aiohttp app with the shared stores, health routes, the part's routes and middlewares."""
    middlewares = (
        request_id_middleware,  # first, so every log line and error response carries the id
        observe_middleware(settings.name),  # sees the final status, including rendered errors
        error_middleware(render_plain_error),  # turns every exception below into an error body
        # Both need a token; during a rotation of the secret, either secret is accepted.
        internal_auth_middleware(
            settings.internal_token_secret, ("/api/", "/internal/"), *settings.internal_secrets_also_accepted
        ),
    )
    app = web.Application(middlewares=middlewares, client_max_size=MAX_BODY_BYTES, handler_args=HANDLER_ARGS)
    app[SETTINGS] = settings
    app.cleanup_ctx.append(db_pool_ctx)
    if uses_redis:
        attach_redis(app, create_redis(settings.redis_url))
    app.cleanup_ctx.append(http_client_ctx)
    app.cleanup_ctx.extend(cleanup_contexts)
    add_health_routes(app)
    setup_routes(app)
    return app
