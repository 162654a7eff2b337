"""The purge: apps deleted longer ago than their restore window are removed with all they own, so
their hostnames are free again (docs/architecture.md, "Apps service")."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import aiopg
from aiohttp import web

from libs.common.db import transaction
from libs.common.state import DB_POOL, SETTINGS
from libs.common.tasks import periodic
from services.apps.queries.deletion import purge_apps

log = logging.getLogger(__name__)

# Apps removed a transaction: short transactions, however many apps expired at once.
PURGE_BATCH = 100


async def purge_expired(pool: aiopg.Pool, restore_days: int) -> int:
    """Remove every app deleted more than `restore_days` ago; how many were removed.

    Replicas may purge at once: each takes the apps it removes with SKIP LOCKED.
    """
    removed = 0
    while True:
        async with transaction(pool) as cur:
            count = await purge_apps(cur, restore_days, PURGE_BATCH)
        removed += count
        if count < PURGE_BATCH:
            if removed:
                log.info("purged %d apps deleted more than %d days ago", removed, restore_days)
            return removed


async def purge_ctx(app: web.Application) -> AsyncIterator[None]:
    """Purge expired apps every APPS_PURGE_INTERVAL_SECONDS for as long as the app runs."""
    settings = app[SETTINGS]

    async def step() -> None:
        await purge_expired(app[DB_POOL], settings.restore_days)

    async with periodic(settings.purge_interval_seconds, step, "apps-purge"):
        yield
