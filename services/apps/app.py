"""The apps service: apps, their config, resources, domains and routes; legacy routing."""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from deploy.parts import APPS
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from services.apps.edge import EDGE_PROVIDERS
from services.apps.keys import EDGE
from services.apps.routes import setup_routes
from services.apps.settings import AppsSettings

PART = APPS


def load_settings(environ: Mapping[str, str] | None = None) -> AppsSettings:
    return AppsSettings.load(PART, environ)


def create_app(settings: AppsSettings) -> web.Application:
    app = create_service_app(settings, setup_routes)
    app[EDGE] = EDGE_PROVIDERS[settings.edge_provider]()
    return app


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
