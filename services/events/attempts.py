"""Recording delivery attempts: what each send got back, written a batch at a time.

A send's outcome is not written by the send itself: it joins the batch under way, and one
transaction records every attempt of the batch and moves each delivery on (succeeded, or due
again after its retry delay). One commit serves as many sends as finished meanwhile, where a
transaction of its own for each was the larger part of a delivery's cost.

Until its attempt is recorded a delivery stays pending, leased: no other worker claims it, and
the next delivery of the same resource to the same endpoint waits (in order per resource). A
worker that dies with a batch unwritten leaves those deliveries to be sent again when their
lease ends: at least once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any

import aiopg
import prometheus_client

from libs.common.db import transaction
from libs.common.tasks import report_failure

log = logging.getLogger(__name__)

ATTEMPTS = prometheus_client.Counter(
    "webhook_delivery_attempts_total", "Webhook delivery attempts, by outcome (a 2xx, or anything else).", ["outcome"]
)

# After the 1st, 2nd, ... failed attempt; after the last, the delivery has failed.
RETRY_DELAYS_SECONDS = (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600)
DISABLE_AFTER_DAYS = 5
KEPT_RESPONSE_CHARS = 1024
# At most this many attempts a transaction; more wait for the next.
BATCH_MAX = 500

INSERT_ATTEMPTS = """
INSERT INTO delivery_attempts (delivery_id, number, attempted_at, status_code, latency_ms, response, error)
SELECT delivery_id, number, to_timestamp(attempted_at), status_code, latency_ms, response, error
FROM unnest(%(ids)s::uuid[], %(numbers)s::integer[], %(at)s::float8[], %(codes)s::integer[], %(latencies)s::integer[],
            %(responses)s::text[], %(errors)s::text[])
    AS attempt (delivery_id, number, attempted_at, status_code, latency_ms, response, error)
ON CONFLICT DO NOTHING
"""

# A batch takes its endpoints' rows before its deliveries', the endpoints in the order of their
# ids: the order an endpoint's deletion takes them (the endpoint, then its pending deliveries), so
# a batch and a deletion, or two workers' batches, never wait on each other in a circle. Only the
# endpoints that change are locked: those with a failure, and those failing until a success. An
# endpoint with both in the batch starts failing anew.
RECORD_ENDPOINTS = """
UPDATE webhook_endpoints e SET failing_since = CASE
        WHEN e.id <> ALL(%(failing)s::uuid[]) THEN NULL
        WHEN e.id = ANY(%(answered)s::uuid[]) THEN now()
        ELSE coalesce(e.failing_since, now()) END
FROM (SELECT id FROM webhook_endpoints
      WHERE id = ANY(%(failing)s::uuid[]) OR (id = ANY(%(answered)s::uuid[]) AND failing_since IS NOT NULL)
      ORDER BY id FOR NO KEY UPDATE) changing
WHERE e.id = changing.id;
UPDATE webhook_endpoints SET enabled = false, updated_at = now(),
    disabled_reason = 'deliveries failed for ' || %(days)s || ' days, since ' || failing_since
WHERE id = ANY(%(failing)s::uuid[]) AND enabled AND failing_since < now() - make_interval(days => %(days)s);
"""

# A failure counts, but moves on only a delivery still pending: one given up meanwhile (its
# endpoint deleted) stays given up.
RECORD_DELIVERIES = """
UPDATE deliveries SET status = 'succeeded', attempts = attempts + 1, finished_at = now(), next_attempt_at = NULL
WHERE id = ANY(%(succeeded)s::uuid[]);
UPDATE deliveries d SET attempts = d.attempts + 1,
    status = CASE WHEN d.status <> 'pending' THEN d.status WHEN failure.delay IS NULL THEN 'failed' ELSE 'pending' END,
    finished_at = CASE WHEN d.status <> 'pending' THEN d.finished_at WHEN failure.delay IS NULL THEN now() END,
    next_attempt_at = CASE WHEN d.status = 'pending' THEN now() + make_interval(secs => failure.delay) END
FROM unnest(%(failed)s::uuid[], %(delays)s::integer[]) AS failure (id, delay)
WHERE d.id = failure.id;
"""


@dataclass(frozen=True)
class Attempt:
    """One send of a delivery and what came of it: a status, or an error when none came."""

    delivery_id: str
    endpoint_id: str
    number: int
    attempted_at: float
    latency_ms: int
    status: int | None
    answer: bytes
    error: str | None

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def error_text(self) -> str | None:
        if self.status is not None and not self.succeeded and self.error is None:
            return f"answered {self.status}"
        return self.error

    def response_text(self) -> str:
        return self.answer.decode("utf-8", errors="replace").replace("\x00", "")[:KEPT_RESPONSE_CHARS]

    def retry_delay(self) -> int | None:
        """Seconds until the next attempt after this one failed; None when it was the last."""
        return RETRY_DELAYS_SECONDS[self.number - 1] if self.number <= len(RETRY_DELAYS_SECONDS) else None


async def record_attempts(cur: Any, attempts: list[Attempt]) -> None:
    """Record `attempts` and move their deliveries on, in the caller's transaction."""
    await cur.execute(
        INSERT_ATTEMPTS,
        {
            "ids": [attempt.delivery_id for attempt in attempts],
            "numbers": [attempt.number for attempt in attempts],
            "at": [attempt.attempted_at for attempt in attempts],
            "codes": [attempt.status for attempt in attempts],
            "latencies": [attempt.latency_ms for attempt in attempts],
            "responses": [attempt.response_text() for attempt in attempts],
            "errors": [attempt.error_text() for attempt in attempts],
        },
    )
    succeeded = [attempt for attempt in attempts if attempt.succeeded]
    failed = [attempt for attempt in attempts if not attempt.succeeded]
    await cur.execute(
        RECORD_ENDPOINTS,
        {
            "answered": sorted({attempt.endpoint_id for attempt in succeeded}),
            "failing": sorted({attempt.endpoint_id for attempt in failed}),
            "days": DISABLE_AFTER_DAYS,
        },
    )
    await cur.execute(
        RECORD_DELIVERIES,
        {
            "succeeded": [attempt.delivery_id for attempt in succeeded],
            "failed": [attempt.delivery_id for attempt in failed],
            "delays": [attempt.retry_delay() for attempt in failed],
        },
    )


class Recorder:
    """Writes the attempts handed to it (`add`) in batches: one transaction at a time, taking
    everything that finished while the previous one was written."""

    def __init__(self, pool: aiopg.Pool) -> None:
        self._pool = pool
        self._waiting: list[Attempt] = []
        self._arrived = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    def add(self, attempt: Attempt) -> None:
        ATTEMPTS.labels("success" if attempt.succeeded else "failure").inc()
        self._waiting.append(attempt)
        self._arrived.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="webhook-attempts")

    async def _run(self) -> None:
        while not self._closing:
            await self._arrived.wait()
            await self.flush()

    async def flush(self) -> None:
        """Write what is waiting, a batch at a time. A batch that fails is dropped and logged:
        its deliveries are sent again when their lease ends."""
        while self._waiting:
            batch, self._waiting = self._waiting[:BATCH_MAX], self._waiting[BATCH_MAX:]
            if not self._waiting:
                self._arrived.clear()
            try:
                async with transaction(self._pool) as cur:
                    await record_attempts(cur, batch)
            except Exception as exc:
                report_failure(exc, f"recording {len(batch)} webhook delivery attempts")

    async def close(self) -> None:
        """Let the batch being written finish, then write what is still waiting."""
        self._closing = True
        self._arrived.set()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
        await self.flush()
