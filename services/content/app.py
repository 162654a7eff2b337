"""The content service: site pages and content documents, and the events that announce their changes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from aiohttp import web

from deploy.parts import CONTENT
from libs.common.keys import REDIS, SETTINGS
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.tasks import periodic
from services.content.relay import INTERVAL_SECONDS, OutboxRelay
from services.content.routes import setup_routes
from services.content.settings import ContentSettings

PART = CONTENT


def load_settings(environ: Mapping[str, str] | None = None) -> ContentSettings:
    return ContentSettings.load(PART, environ)


async def relay_ctx(app: web.Application) -> AsyncIterator[None]:
    """Every worker runs a relay; the one holding the lock publishes, the others stand by."""
    settings: ContentSettings = app[SETTINGS]
    relay = OutboxRelay(settings.database_url, settings.db_schema, app[REDIS], settings.events_stream)
    try:
        async with periodic(INTERVAL_SECONDS, relay.step, "outbox-relay"):
            yield
    finally:
        await relay.close()


def create_app(settings: ContentSettings) -> web.Application:
    return create_service_app(settings, setup_routes, uses_redis=True, cleanup_contexts=(relay_ctx,))


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
