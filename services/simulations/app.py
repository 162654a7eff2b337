"""The simulations service: agent-simulation tasks, environments and runs, the workers that run
them, and the runner's intake."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

from aiohttp import web

from libs.common.clients import EdgeAppsClient
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, HTTP, REDIS, SETTINGS
from libs.common.tasks import periodic_group
from libs.common.webhook_outbox import webhook_relay_ctx
from libs.contract.parts import SIMULATIONS
from services.simulations.reruns import DocumentChanges, RouteChanges
from services.simulations.routes import setup_routes
from services.simulations.settings import SimulationsSettings
from services.simulations.state import WAKE
from services.simulations.worker import Worker

PART = SIMULATIONS


def load_settings(environ: Mapping[str, str] | None = None) -> SimulationsSettings:
    return SimulationsSettings.load(PART, environ)


def create_app(settings: SimulationsSettings) -> web.Application:
    contexts = (webhook_relay_ctx, worker_ctx) if settings.worker else (webhook_relay_ctx,)
    app = create_service_app(settings, setup_routes, uses_redis=True, cleanup_contexts=contexts)
    app[WAKE] = asyncio.Event()
    return app


async def worker_ctx(app: web.Application) -> AsyncIterator[None]:
    """Take queued runs, take back lost ones, and queue the re-runs that changes of documents and
    of Apps' routes call for."""
    settings: SimulationsSettings = app[SETTINGS]
    worker = Worker(app[DB_POOL], app[HTTP], settings)
    documents = DocumentChanges(
        app[REDIS], settings.content_stream, app[DB_POOL], EdgeAppsClient(app[HTTP], settings.apps_url)
    )
    routes = RouteChanges(app[REDIS], settings.apps_stream, app[DB_POOL])
    wake = app[WAKE]

    async def take() -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), settings.poll_seconds)
        wake.clear()
        await worker.take_step()

    steps: dict[str, tuple[float, Callable[[], Awaitable[object]]]] = {
        "simulation-worker": (0.0, take),
        "simulation-reaper": (settings.lease_seconds / 3, worker.reap_step),
        "simulation-content-changes": (0.0, documents.step),
        "simulation-route-changes": (0.0, routes.step),
    }
    async with periodic_group(steps):
        yield
    await worker.stop()


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
