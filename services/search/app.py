"""The search service: semantic search over an organization's content, and the index behind it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from functools import cache, partial

from aiohttp import web
from prometheus_client import Gauge

from libs.common.catch_up import STEP_SECONDS, CatchUp
from libs.common.clients import ContentClient, read_changes
from libs.common.logs import configure_logging
from libs.common.service import create_service_app
from libs.common.state import DB_POOL, HTTP, REDIS, SETTINGS
from libs.common.tasks import periodic
from libs.contract import internal
from libs.contract.parts import SEARCH
from services.search.embedding import Embedder
from services.search.indexer import LAG_EVERY_SECONDS, EventConsumer, Indexer
from services.search.routes import setup_routes
from services.search.scan import scan_on_one_thread
from services.search.searching import Searcher
from services.search.settings import SearchSettings
from services.search.state import SEARCHER
from services.search.vectors import VectorCache

PART = SEARCH
CACHE_CHUNKS = Gauge(
    "search_vector_cache_chunks", "Chunk vectors held in memory, over all organizations.", multiprocess_mode="livesum"
)
MEASURE_EVERY_SECONDS = 5.0


@cache
def shared_embedder() -> Embedder:
    """The model, loaded once per process (about 90 MB of weights) and shared by its apps."""
    return Embedder()


async def load_embedder() -> Embedder:
    """The model, loaded off the event loop (about a second)."""
    return await asyncio.get_running_loop().run_in_executor(None, shared_embedder)


def load_settings(environ: Mapping[str, str] | None = None) -> SearchSettings:
    return SearchSettings.load(PART, environ)


def create_app(settings: SearchSettings) -> web.Application:
    scan_on_one_thread()
    contexts = [searcher_ctx, indexing_ctx] if settings.indexing else [searcher_ctx]
    return create_service_app(settings, setup_routes, uses_redis=settings.indexing, cleanup_contexts=contexts)


async def searcher_ctx(app: web.Application) -> AsyncIterator[None]:
    cache = VectorCache(app[SETTINGS].cache_max_chunks)
    searcher = Searcher(app[DB_POOL], await load_embedder(), cache)
    app[SEARCHER] = searcher

    async def measure() -> None:
        CACHE_CHUNKS.set(cache.chunks)

    async with periodic(MEASURE_EVERY_SECONDS, measure, "search-cache-size"):
        yield
    searcher.close()


async def indexing_ctx(app: web.Application) -> AsyncIterator[None]:
    """Consume content events for as long as the app runs."""
    settings: SearchSettings = app[SETTINGS]
    content = ContentClient(app[HTTP], settings.content_url)
    indexer = Indexer(app[DB_POOL], content, await load_embedder(), settings.indexing_threads)
    consumer = EventConsumer(app[REDIS], settings.events_stream, indexer)
    read = partial(read_changes, app[HTTP], settings.content_url, internal.CONTENT_CHANGES, PART.name)
    catch_up = CatchUp(consumer, app[DB_POOL], "content", read, consumer.apply_events)
    async with (
        periodic(0.0, consumer.step, "search-indexer"),
        periodic(LAG_EVERY_SECONDS, consumer.measure_lag, "search-indexing-lag"),
        periodic(STEP_SECONDS, catch_up.step, "search-catch-up"),
    ):
        yield
    indexer.close()


async def app_factory() -> web.Application:
    """The gunicorn entry point: settings from the environment."""
    settings = load_settings()
    configure_logging(settings.name, settings.log_level)
    return create_app(settings)
