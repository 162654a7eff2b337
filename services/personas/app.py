"""The personas service: personas, topics and prompt suggestions of a product."""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.settings import ServiceSettings
from libs.common.webhook_outbox import webhook_relay_ctx
from libs.contract.parts import PERSONAS
from services.personas.generator import TemplateGenerator
from services.personas.routes import setup_routes
from services.personas.state import GENERATOR

PART = PERSONAS


def load_settings(environ: Mapping[str, str] | None = None) -> ServiceSettings:
    return ServiceSettings.load(PART, environ)


def create_app(settings: ServiceSettings) -> web.Application:
    app = create_service_app(settings, setup_routes, uses_redis=True, cleanup_contexts=(webhook_relay_ctx,))
    app[GENERATOR] = TemplateGenerator()
    return app


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
