"""The analytics part: answers of AI engines (collected elsewhere, or asked by prompt runs) and their
analysis: the brands they mention and the pages they cite."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping

from aiohttp import web

from libs.common.clients import AppsClient, GatewayClient, PersonasClient, TrafficClient
from libs.common.engines.catalog import engines
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, HTTP, SETTINGS
from libs.common.tasks import periodic
from libs.contract.parts import ANALYTICS
from services.analytics.analyser import Analyser
from services.analytics.brand_sets import BrandSets
from services.analytics.route_links import RouteLinks
from services.analytics.routes import setup_routes
from services.analytics.runner import Runner
from services.analytics.scheduler import Scheduler
from services.analytics.settings import AnalyticsSettings
from services.analytics.state import ANALYSER, PERSONAS, RUNNER, TRAFFIC

PART = ANALYTICS


def load_settings(environ: Mapping[str, str] | None = None) -> AnalyticsSettings:
    return AnalyticsSettings.load(PART, environ)


async def work_ctx(app: web.Application) -> AsyncIterator[None]:
    """The owners' and engines' clients, the analyser, the runner and the scheduler, working until
    the app stops."""
    settings: AnalyticsSettings = app[SETTINGS]
    personas = PersonasClient(app[HTTP], settings.personas_url)
    app[PERSONAS] = personas
    app[TRAFFIC] = TrafficClient(app[HTTP], settings.traffic_url)
    brand_sets = BrandSets(GatewayClient(app[HTTP], settings.gateway_url), personas)
    analyser = Analyser(app[DB_POOL], brand_sets, RouteLinks(AppsClient(app[HTTP], settings.apps_url)))
    app[ANALYSER] = analyser
    clients = engines(settings.engines, settings.engine_timeout_seconds, settings.engine_retries)
    runner = Runner(app[DB_POOL], clients, settings, analyser.wake)
    app[RUNNER] = runner
    scheduler = Scheduler(app[DB_POOL], personas, list(clients), runner.wake)
    stopping = asyncio.Event()
    workers = [
        asyncio.create_task(analyser.work(stopping), name="analyse-answers"),
        asyncio.create_task(runner.work(stopping), name="run-prompts"),
    ]
    try:
        if clients:  # without an engine to call, nothing is due
            async with periodic(settings.schedule_interval_seconds, scheduler.step, "schedule-prompts"):
                yield
        else:
            yield
    finally:
        stopping.set()
        for worker in workers:
            try:
                await asyncio.wait_for(asyncio.shield(worker), settings.engine_timeout_seconds)
            except TimeoutError:
                worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
        for client in clients.values():
            await client.close()


def create_app(settings: AnalyticsSettings) -> web.Application:
    return create_service_app(settings, setup_routes, cleanup_contexts=(work_ctx,))


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
