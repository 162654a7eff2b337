"""The events service: organizations' webhooks (endpoints, signed deliveries) and audit trail."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from functools import partial

from aiohttp import web

from libs.common.catch_up import STEP_SECONDS as CATCH_UP_STEP_SECONDS
from libs.common.catch_up import CatchUp
from libs.common.clients import read_changes
from libs.common.db import transaction
from libs.common.events import audit_stream, webhook_events_stream
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, HTTP, REDIS, SETTINGS
from libs.common.stream_consumer import StreamConsumer
from libs.common.tasks import periodic_group
from libs.contract import internal
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


def consumers(app: web.Application, stored: Callable[[], None]) -> tuple[list[StreamConsumer], list[CatchUp]]:
    """The streams' consumers, and the catch-up of each one whose events a part keeps in its outbox;
    `stored` is told when webhook events were stored."""
    settings: EventsSettings = app[SETTINGS]
    redis, pool, prefix, http = app[REDIS], app[DB_POOL], settings.redis_prefix, app[HTTP]
    catch_ups = []
    parts: list[StreamConsumer] = []
    for source in WEBHOOK_SOURCES:
        events = PartEvents(redis, webhook_events_stream(prefix, source.name), pool, stored)
        url = settings.source_urls[source.name]
        read = partial(read_changes, http, url, internal.WEBHOOK_CHANGES[source.name], PART.name)
        catch_ups.append(CatchUp(events, pool, f"webhooks:{source.name}", read, events.apply_events, from_group=True))
        parts.append(events)
    return [*parts, AuditRecords(redis, audit_stream(prefix), pool)], catch_ups


async def work_ctx(app: web.Application) -> AsyncIterator[None]:
    """The streams' consumers, the deliverer and the pruning of what is past its retention."""
    settings: EventsSettings = app[SETTINGS]
    pool = app[DB_POOL]

    async def prune() -> None:
        async with transaction(pool) as cur:
            await queries.prune(cur, settings.audit_retention_days, settings.delivery_retention_days)

    async with deliverer(pool, settings) as worker:
        readers, catch_ups = consumers(app, worker.wake)
        steps: dict[str, tuple[float, Callable[[], Awaitable[object]]]] = {
            f"consume-{index}-{type(consumer).__name__}": (CONSUME_INTERVAL_SECONDS, consumer.step)
            for index, consumer in enumerate(readers)
        }
        steps.update(
            {f"catch-up-{index}": (CATCH_UP_STEP_SECONDS, catch_up.step) for index, catch_up in enumerate(catch_ups)}
        )
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
