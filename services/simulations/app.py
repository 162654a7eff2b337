"""The simulations service: read access to agent-simulation runs, and the runner's intake."""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.settings import ServiceSettings
from libs.common.webhook_outbox import webhook_relay_ctx
from libs.contract.parts import SIMULATIONS
from services.simulations.routes import setup_routes

PART = SIMULATIONS


def load_settings(environ: Mapping[str, str] | None = None) -> ServiceSettings:
    return ServiceSettings.load(PART, environ)


def create_app(settings: ServiceSettings) -> web.Application:
    return create_service_app(settings, setup_routes, uses_redis=True, cleanup_contexts=(webhook_relay_ctx,))


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
