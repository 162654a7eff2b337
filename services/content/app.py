"""The content service: site pages and content documents, and the events that announce their changes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import aiopg
from aiohttp import web
from prometheus_client import Gauge

from libs.common.db import cursor, transaction
from libs.common.logs import configure_logging
from libs.common.relay import INTERVAL_SECONDS, OutboxRelay
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, REDIS, SETTINGS
from libs.common.tasks import periodic
from libs.common.webhook_outbox import webhook_relay_ctx
from libs.contract.parts import CONTENT
from services.content.queries.outbox import CONTENT_OUTBOX
from services.content.queries.site_pages import fold_counts
from services.content.routes import setup_routes
from services.content.settings import ContentSettings

PART = CONTENT
FOLD_COUNTS_SECONDS = 60.0


# Set by every content worker from the same table: the highest sample is the current one.
OUTBOX_BACKLOG = Gauge("content_outbox_backlog", "Events not yet published to the stream.", multiprocess_mode="livemax")
OUTBOX_OLDEST_AGE = Gauge(
    "content_outbox_oldest_age_seconds", "Age of the oldest event not yet published.", multiprocess_mode="livemax"
)
BACKLOG_EVERY_SECONDS = 5.0


async def measure_backlog(pool: aiopg.Pool) -> None:
    """Publish the outbox's backlog figures (a periodic task of every content worker)."""
    async with cursor(pool) as cur:
        count, age = await CONTENT_OUTBOX.backlog(cur)
    OUTBOX_BACKLOG.set(count)
    OUTBOX_OLDEST_AGE.set(age)


def load_settings(environ: Mapping[str, str] | None = None) -> ContentSettings:
    return ContentSettings.load(PART, environ)


async def relay_ctx(app: web.Application) -> AsyncIterator[None]:
    """Every worker runs a relay; the one holding the lock publishes, the others stand by."""
    settings: ContentSettings = app[SETTINGS]
    relay = OutboxRelay(
        settings.session_database_url, settings.db_schema, CONTENT_OUTBOX, app[REDIS], settings.events_stream
    )
    try:
        async with (
            periodic(INTERVAL_SECONDS, relay.step, "outbox-relay"),
            periodic(BACKLOG_EVERY_SECONDS, lambda: measure_backlog(app[DB_POOL]), "outbox-backlog"),
        ):
            yield
    finally:
        await relay.close()


async def count_folding_ctx(app: web.Application) -> AsyncIterator[None]:
    """Keeps document_counts a few rows per product, however many writes it has counted."""

    async def fold() -> None:
        async with transaction(app[DB_POOL]) as cur:
            await fold_counts(cur)

    async with periodic(FOLD_COUNTS_SECONDS, fold, "fold-document-counts"):
        yield


def create_app(settings: ContentSettings) -> web.Application:
    return create_service_app(
        settings, setup_routes, uses_redis=True, cleanup_contexts=(relay_ctx, webhook_relay_ctx, count_folding_ctx)
    )


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
