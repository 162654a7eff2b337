"""Looking a verified domain's TXT record up again, so that a hostname whose DNS changed hands can
be reclaimed (as Vercel and Cloudflare for SaaS re-check custom hostnames).

Every DOMAIN_RECHECK_SECONDS each verified app domain's record is looked up: found, it is
present; read and without the domain's token, it is missing since the first such check
(`recordMissingSince`); a lookup that got no answer changes nothing. Once it has been missing
DOMAIN_RECLAIM_GRACE_SECONDS, another organization proving the hostname takes it over
(services/apps/claims.py). Every replica may run the rechecks: a domain checked twice is harmless.
"""

from __future__ import annotations

import asyncio

import aiopg

from libs.common.db import cursor, transaction
from services.apps.queries import claims as queries
from services.apps.verification import TxtChecker

RECHECK_BATCH = 100
# Lookups in flight at once: DNS servers throttle a client that asks too much at a time.
PARALLEL_LOOKUPS = 10


class DomainRecheck:
    def __init__(self, pool: aiopg.Pool, checker: TxtChecker, every_seconds: int) -> None:
        self._pool = pool
        self._checker = checker
        self._every_seconds = every_seconds

    async def step(self) -> None:
        async with cursor(self._pool) as cur:
            due = await queries.due_rechecks(cur, self._every_seconds, RECHECK_BATCH)
        limit = asyncio.Semaphore(PARALLEL_LOOKUPS)

        async def recheck(domain_id: str, hostname: str, token: str) -> None:
            async with limit:
                found = await self._checker.lookup(hostname)
            if found.error is not None:
                return
            async with transaction(self._pool) as cur:
                await queries.record_recheck(cur, domain_id, not found.absent(token))

        await asyncio.gather(*(recheck(row["id"], row["domain"], row["verification_token"]) for row in due))
