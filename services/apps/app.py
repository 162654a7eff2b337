"""The apps service: apps, their config, resources, domains and routes; legacy routing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from functools import partial

from aiohttp import web

from libs.common.catch_up import STEP_SECONDS, CatchUp
from libs.common.clients import read_changes
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, HTTP, REDIS, SETTINGS
from libs.common.tasks import periodic
from libs.common.webhook_outbox import webhook_relay_ctx
from libs.contract import internal
from libs.contract.parts import APPS
from services.apps.edge import EDGE_PROVIDERS
from services.apps.products import ProductConsumer
from services.apps.purge import purge_ctx
from services.apps.rechecks import DomainRecheck
from services.apps.releases import ReleaseSweep
from services.apps.routes import setup_routes
from services.apps.settings import AppsSettings
from services.apps.state import EDGE, ROUTED_COUNTS, TEXTS, TXT_CHECKER
from services.apps.text_cache import KeptByVersion, TextCache
from services.apps.verification import TxtChecker

PART = APPS
# Routed counts kept: a few numbers each, for the apps whose candidates were read last.
ROUTED_COUNTS_KEPT = 1024


def load_settings(environ: Mapping[str, str] | None = None) -> AppsSettings:
    return AppsSettings.load(PART, environ)


async def products_ctx(app: web.Application) -> AsyncIterator[None]:
    """Keep the copy of the products up to date for as long as the app runs."""
    settings: AppsSettings = app[SETTINGS]
    consumer = ProductConsumer(app[REDIS], settings.events_stream, app[DB_POOL])
    # Background work with no request waiting on it: reading the gateway's changes here is no
    # request crossing back into the part that called.
    read = partial(read_changes, app[HTTP], settings.gateway_url, internal.PRODUCT_CHANGES, PART.name)
    catch_up = CatchUp(consumer, app[DB_POOL], "products", read, consumer.apply_events)
    async with periodic(0.0, consumer.step, "apps-products"), periodic(STEP_SECONDS, catch_up.step, "apps-catch-up"):
        yield


async def releases_ctx(app: web.Application) -> AsyncIterator[None]:
    """Release lapsed domain claims, announce released domains and look verified domains' records up
    again for as long as the app runs."""
    settings: AppsSettings = app[SETTINGS]
    sweep = ReleaseSweep(app[DB_POOL], app[HTTP], settings.content_url, settings.name)
    recheck = DomainRecheck(app[DB_POOL], app[TXT_CHECKER], settings.domain_recheck_seconds)
    async with (
        periodic(settings.domain_sweep_seconds, sweep.step, "apps-domain-releases"),
        periodic(settings.domain_sweep_seconds, recheck.step, "apps-domain-rechecks"),
    ):
        yield


def create_app(settings: AppsSettings) -> web.Application:
    app = create_service_app(
        settings,
        setup_routes,
        uses_redis=True,
        cleanup_contexts=(products_ctx, purge_ctx, releases_ctx, webhook_relay_ctx),
    )
    app[EDGE] = EDGE_PROVIDERS[settings.edge_provider]()
    app[TEXTS] = TextCache()
    app[ROUTED_COUNTS] = KeptByVersion(ROUTED_COUNTS_KEPT)
    app[TXT_CHECKER] = TxtChecker(settings.dns_nameservers, settings.dns_port, settings.dns_timeout_seconds)
    return app


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
