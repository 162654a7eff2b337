"""The events service: organizations' webhooks (endpoints, signed deliveries) and audit trail."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

from aiohttp import web

from libs.common.db import transaction
from libs.common.events import audit_stream, webhook_events_stream
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, REDIS, SETTINGS
from libs.common.stream_consumer import StreamConsumer
from libs.common.tasks import periodic_group
from libs.contract.parts import EVENTS, WEBHOOK_SOURCES
from services.events import queries
from services.events.delivery import deliverer
from services.events.routes import setup_routes
from services.events.settings import EventsSettings
from services.events.sources import AuditRecords, PartEvents

PART = EVENTS
PRUNE_EVERY_SECONDS = 3600.0
# A consumer's step blocks on its stream for up to half a second: it is run again at once.
CONSUME_INTERVAL_SECONDS = 0.0


def load_settings(environ: Mapping[str, str] | None = None) -> EventsSettings:
    return EventsSettings.load(PART, environ)


def consumers(app: web.Application) -> list[StreamConsumer]:
    settings: EventsSettings = app[SETTINGS]
    redis, pool, prefix = app[REDIS], app[DB_POOL], settings.redis_prefix
    return [
        *(PartEvents(redis, webhook_events_stream(prefix, part.name), pool) for part in WEBHOOK_SOURCES),
        AuditRecords(redis, audit_stream(prefix), pool),
    ]


async def work_ctx(app: web.Application) -> AsyncIterator[None]:
    """The streams' consumers, the deliverer and the pruning of what is past its retention."""
    settings: EventsSettings = app[SETTINGS]
    pool = app[DB_POOL]

    async def prune() -> None:
        async with transaction(pool) as cur:
            await queries.prune(cur, settings.audit_retention_days, settings.delivery_retention_days)

    async with deliverer(pool, settings) as worker:
        steps: dict[str, tuple[float, Callable[[], Awaitable[object]]]] = {
            f"consume-{index}-{type(consumer).__name__}": (CONSUME_INTERVAL_SECONDS, consumer.step)
            for index, consumer in enumerate(consumers(app))
        }
        steps["webhook-deliveries"] = (0.0, worker.step)  # the step waits for a free slot itself
        steps["events-retention"] = (PRUNE_EVERY_SECONDS, prune)
        async with periodic_group(steps):
            yield


def create_app(settings: EventsSettings) -> web.Application:
    return create_service_app(settings, setup_routes, uses_redis=True, cleanup_contexts=(work_ctx,))


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
