"""The AI-traffic service: requests of AI agents to the organizations' Apps, ingested or captured
from the App edge, verified, stored with hourly rollups, and served as logs and summaries."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from aiohttp import web

from libs.common.clients import AppsClient
from libs.common.http_client import client_session
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, HTTP, REDIS, SETTINGS
from libs.common.tasks import periodic
from libs.contract.parts import TRAFFIC
from services.traffic.capture import EdgeRequests
from services.traffic.catalog import Catalog
from services.traffic.hosts import HostDirectory
from services.traffic.recording import Recorder
from services.traffic.routes import setup_routes
from services.traffic.settings import TrafficSettings
from services.traffic.signatures import SignatureChecker
from services.traffic.state import CATALOG, CLICKHOUSE_ENGINE, HOSTS, RECORDER, STORE
from services.traffic.store import TrafficStore
from services.traffic.store_clickhouse import ClickHouseConnect, ClickHouseStore, Engine
from services.traffic.store_postgres import PostgresStore
from services.traffic.verification import ReverseDns, Verifier

PART = TRAFFIC
MAINTENANCE_SECONDS = 3600.0


def load_settings(environ: Mapping[str, str] | None = None) -> TrafficSettings:
    return TrafficSettings.load(PART, environ)


@asynccontextmanager
async def opened_store(app: web.Application) -> AsyncIterator[TrafficStore]:
    """The store AI_TRAFFIC_STORE names: PostgreSQL through the part's pool, or ClickHouse."""
    settings: TrafficSettings = app[SETTINGS]
    if settings.store == "postgres":
        yield PostgresStore(app[DB_POOL])
        return
    given = app[CLICKHOUSE_ENGINE]
    if given is not None:
        yield ClickHouseStore(given)
        return
    assert settings.clickhouse_url is not None
    engine = await ClickHouseConnect.connect(settings.clickhouse_url)
    try:
        yield ClickHouseStore(engine)
    finally:
        await engine.close()


async def store_ctx(app: web.Application) -> AsyncIterator[None]:
    """The store, its partitions (or tables) made before the first request, and kept so every hour."""
    settings: TrafficSettings = app[SETTINGS]
    async with opened_store(app) as store:
        app[STORE] = store
        await store.maintain(datetime.now(UTC), settings.retention_days)

        async def maintain() -> None:
            await store.maintain(datetime.now(UTC), settings.retention_days)

        async with periodic(MAINTENANCE_SECONDS, maintain, "traffic-maintenance"):
            yield


async def recorder_ctx(app: web.Application) -> AsyncIterator[None]:
    """What recording needs: the Apps' hosts, reverse DNS and the agents' key directories."""
    settings: TrafficSettings = app[SETTINGS]
    app[HOSTS] = HostDirectory(AppsClient(app[HTTP], settings.apps_url))
    rdns = ReverseDns(settings.dns_nameservers, settings.dns_port, settings.dns_timeout_seconds)
    async with client_session(limit=20) as session:
        verifier = Verifier(rdns, SignatureChecker(session, settings.key_directory_timeout_seconds))
        app[RECORDER] = Recorder(app[CATALOG], verifier, app[STORE])
        yield


async def capture_ctx(app: web.Application) -> AsyncIterator[None]:
    """Record the requests the App edge answered, for as long as the app runs."""
    settings: TrafficSettings = app[SETTINGS]
    if not settings.capture:
        yield
        return
    consumer = EdgeRequests(app[REDIS], settings.capture_stream, app[RECORDER])
    async with periodic(0.0, consumer.step, "traffic-capture"):
        yield


def create_app(settings: TrafficSettings, clickhouse_engine: Engine | None = None) -> web.Application:
    """`clickhouse_engine`, when given, is used instead of connecting to CLICKHOUSE_URL (the suite
    and the benchmarks pass ClickHouse embedded by chdb: libs/local/chdb_engine.py)."""
    app = create_service_app(
        settings, setup_routes, uses_redis=True, cleanup_contexts=(store_ctx, recorder_ctx, capture_ctx)
    )
    app[CATALOG] = Catalog.load(settings.catalog_path)
    app[CLICKHOUSE_ENGINE] = clickhouse_engine
    return app


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
