"""The edge: every App served on its own domains, to people and agents, with no credential
(docs/architecture.md, "The edge"). It keeps no data: what it serves is read through the apps
service and held warm in memory (services/edge/store.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from aiohttp import web

from libs.common.clients import EdgeAppsClient
from libs.common.events import content_events_stream, edge_requests_stream
from libs.common.http_client import http_client_ctx
from libs.common.logs import configure_logging
from libs.common.middlewares import observe_middleware, request_id_middleware
from libs.common.redis_client import attach_redis, create_redis
from libs.common.state import HTTP, REDIS, SETTINGS
from libs.common.tasks import periodic_group
from libs.contract.parts import EDGE
from services.edge import traffic
from services.edge.changes import ContentChanges
from services.edge.origin import Origins
from services.edge.settings import EdgeSettings
from services.edge.store import Store
from services.edge.views import APPS, ORIGINS, STORE, edge, pages_middleware

PART = EDGE
SLOW_SECONDS = 1.0


def load_settings(environ: Mapping[str, str] | None = None) -> EdgeSettings:
    return EdgeSettings.load(PART, environ)


async def store_ctx(app: web.Application) -> AsyncIterator[None]:
    """The warm copies, kept current by the versions apps answers and the content stream."""
    settings: EdgeSettings = app[SETTINGS]
    app[APPS] = EdgeAppsClient(app[HTTP], settings.apps_url)
    store = app[STORE] = Store(app[APPS], settings.cache_entries, service=settings.name)
    changes = ContentChanges(app[REDIS], content_events_stream(settings.redis_prefix), store)
    async with periodic_group(
        {"edge-versions": (settings.refresh_seconds, store.refresh), "edge-content-changes": (0.0, changes.step)}
    ):
        yield


async def origins_ctx(app: web.Application) -> AsyncIterator[None]:
    settings: EdgeSettings = app[SETTINGS]
    origins = Origins(
        settings.origin_allowed_networks, settings.origin_connect_timeout_seconds, settings.origin_timeout_seconds
    )
    async with origins.open():
        app[ORIGINS] = origins
        yield


def failed_or_slow(status: int, seconds: float) -> bool:
    """The requests the edge's access log keeps by default: what operations act on. Every request
    is counted by the metrics, and each one of an App's domain recorded by the request log."""
    return status >= 500 or seconds >= SLOW_SECONDS


def create_app(settings: EdgeSettings) -> web.Application:
    redis = create_redis(settings.redis_url)
    stream = edge_requests_stream(settings.redis_prefix)
    requests = traffic.RequestLog(redis, stream, settings.traffic_queue, settings.trusted_proxies)
    logged = None if settings.access_log == "all" else failed_or_slow
    app = web.Application(
        middlewares=(
            request_id_middleware,
            observe_middleware(settings.name, logged),
            # Inside the metrics, outside the error pages: it records the status the client got.
            *((traffic.request_log_middleware(requests),) if settings.capture else ()),
            pages_middleware,
        )
    )
    app[SETTINGS] = settings
    attach_redis(app, redis)
    app.cleanup_ctx.append(http_client_ctx)
    app.cleanup_ctx.append(store_ctx)
    app.cleanup_ctx.append(origins_ctx)

    async def request_log_ctx(app: web.Application) -> AsyncIterator[None]:
        async for _ in traffic.running(requests):
            yield

    if settings.capture:
        app.cleanup_ctx.append(request_log_ctx)
    app.router.add_route("*", "/{tail:.*}", edge, name="edge")
    return app


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
