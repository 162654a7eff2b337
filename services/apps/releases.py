"""Ending claims in the background: lapsed unverified claims are released, and every withdrawn
domain (released, deleted on its own, or of a purged app: queries/claims.py `unannounced`) is
announced to the content service, which detaches it from the organization's documents.

A withdrawal is written first (by this sweep, a takeover in services/apps/claims.py, a domain's
delete or the purge) and announced after, each domain until content has answered, so a content
service that is down loses nothing: the next round announces it again (detaching twice changes
nothing). Every replica may run the sweep.
"""

from __future__ import annotations

import logging
from collections import defaultdict

import aiopg

from libs.common.clients import ContentClient
from libs.common.db import cursor, transaction
from libs.common.http_client import InternalClient
from libs.common.internal_token import Organization, service_caller
from services.apps.queries import claims as queries

log = logging.getLogger(__name__)

ANNOUNCE_BATCH = 500  # the most ids /internal/domains/withdrawn takes at once


class ReleaseSweep:
    def __init__(self, pool: aiopg.Pool, http: InternalClient, content_url: str, service: str) -> None:
        self._pool = pool
        self._content = ContentClient(http, content_url)
        self._service = service

    async def step(self) -> None:
        async with transaction(self._pool) as cur:
            lapsed = await queries.release_lapsed(cur)
        if lapsed:
            log.info("released %d lapsed domain claims", lapsed)
        async with cursor(self._pool) as cur:
            rows = await queries.unannounced(cur, ANNOUNCE_BATCH)
        by_organization: dict[str, list[str]] = defaultdict(list)
        for row in rows:
            by_organization[str(row["organization_id"])].append(str(row["id"]))
        for organization_id, ids in by_organization.items():
            # The content service's endpoints only need the organization's id.
            caller = service_caller(self._service, Organization(id=organization_id, slug="", name=""))
            await self._content.domains_withdrawn(caller, ids)
            async with transaction(self._pool) as cur:
                await queries.mark_announced(cur, ids)
