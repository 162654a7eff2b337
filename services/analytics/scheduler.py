"""Cadences: every active daily prompt runs once each UTC day, every weekly one once each ISO week
(from Monday), however many replicas look. A replica's scheduler reads the prompts due (the personas
part, every organization's) and, for each not yet run this period, creates its run and records the
period in the same transaction; the period's primary key lets exactly one replica win."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from libs.common.clients import PersonasClient
from libs.common.db import transaction
from libs.common.internal_token import service_caller
from services.analytics import run_queries
from services.analytics.planning import engines_for, tasks_of

log = logging.getLogger(__name__)

PAGE = 500


class PeriodTaken(Exception):
    """Another replica ran the prompt this period first: the run just made is rolled back."""


def period_of(cadence: str, now: datetime) -> str:
    """The period a cadence runs once in: `2026-11-28` (a UTC day) or `2026-W48` (an ISO week)."""
    if cadence == "daily":
        return now.date().isoformat()
    year, week, _ = now.isocalendar()
    return f"{year}-W{week:02d}"


class Scheduler:
    def __init__(
        self,
        pool: Any,
        personas: PersonasClient,
        configured: list[str],
        on_run: Callable[[], None],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._pool = pool
        self._personas = personas
        self._configured = configured
        self._on_run = on_run
        self._clock = clock

    async def step(self) -> int:
        """Create the runs due now; how many."""
        created = 0
        now = self._clock()
        for cadence in ("daily", "weekly"):
            period = period_of(cadence, now)
            after: str | None = None
            while True:
                prompts, after = await self._personas.scheduled_prompts(
                    service_caller("analytics"), cadence, after, PAGE
                )
                created += await self._schedule(prompts, period)
                if after is None:
                    break
        if created:
            self._on_run()
        return created

    async def _schedule(self, prompts: list[dict[str, Any]], period: str) -> int:
        async with transaction(self._pool) as cur:
            taken = await run_queries.periods_taken(cur, period, [prompt["id"] for prompt in prompts])
        created = 0
        for prompt in prompts:
            if prompt["id"] in taken:
                continue
            engines = [engine for engine in engines_for(prompt, None, self._configured) if engine in self._configured]
            if not engines:
                log.warning("prompt %s is due but none of its engines is configured", prompt["id"])
                continue
            try:
                async with transaction(self._pool) as cur:
                    run = await run_queries.create_run(
                        cur,
                        prompt["organizationId"],
                        prompt["productId"],
                        "schedule",
                        tasks_of(prompt, engines, prompt["samples"]),
                        prompt["samples"],
                    )
                    if not await run_queries.take_period(cur, prompt["id"], period, str(run["id"])):
                        raise PeriodTaken
                created += 1
            except PeriodTaken:
                continue
        return created
