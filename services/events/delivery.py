"""Sending deliveries: claim what is due, post it signed, record the attempt, schedule the next.

Every worker of every replica runs a `Deliverer`. A delivery is claimed in a transaction (`FOR
UPDATE SKIP LOCKED`) by moving its `next_attempt_at` a lease ahead, so no other worker takes it
while it is in flight and a worker that dies mid-send leaves it due again when the lease ends
(at least once). Each claimed delivery is sent by a task of its own, up to `WEBHOOK_CONCURRENCY`
at once and up to `WEBHOOK_CONCURRENCY_PER_ENDPOINT` (8) to one endpoint: a slow or dead
endpoint holds at most its own share of the slots, each for at most the 10 s timeout, never the
others'. Deliveries of one resource to one endpoint go out one at a time, in the
order their events arrived: a later one waits while an earlier one is pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import aiopg
import prometheus_client

from libs.common.address_policy import RefusedAddress, SafeResolver, check_host
from libs.common.db import Row, fetch_all, transaction
from libs.common.encoding import dumps
from libs.common.tasks import watch
from services.events.settings import EventsSettings
from services.events.signing import signed_headers

log = logging.getLogger(__name__)

ATTEMPTS = prometheus_client.Counter(
    "webhook_delivery_attempts_total", "Webhook delivery attempts, by outcome (a 2xx, or anything else).", ["outcome"]
)

# After the 1st, 2nd, ... failed attempt; after the last, the delivery has failed.
RETRY_DELAYS_SECONDS = (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600)
DISABLE_AFTER_DAYS = 5
TIMEOUT_SECONDS = 10.0
READ_LIMIT_BYTES = 64 * 1024
KEPT_RESPONSE_CHARS = 1024
LEASE_SECONDS = 60
# A round claims what is due, then waits until a send finishes or this long passes.
INTERVAL_SECONDS = 0.1
USER_AGENT = "aivis-webhooks/1"

# Due deliveries, oldest first, at most `per_endpoint` in flight to one endpoint from this worker
# (`busy`: the endpoints it is sending to and how many), none behind a pending earlier delivery
# of the same resource to the same endpoint.
CLAIM = """
WITH candidates AS (
    SELECT d.id, d.endpoint_id, d.next_attempt_at,
           row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.seq) AS rank
    FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND e.enabled AND e.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM deliveries p WHERE p.endpoint_id = d.endpoint_id
                      AND p.resource_key = d.resource_key AND p.status = 'pending' AND p.seq < d.seq)
), allowed AS (
    SELECT c.id FROM candidates c
    LEFT JOIN unnest(%(busy_endpoints)s::uuid[], %(busy_counts)s::integer[]) AS busy (endpoint_id, used)
        ON busy.endpoint_id = c.endpoint_id
    WHERE c.rank <= %(per_endpoint)s - coalesce(busy.used, 0)
    ORDER BY c.next_attempt_at LIMIT %(limit)s
), due AS (
    SELECT id FROM deliveries WHERE id IN (SELECT id FROM allowed) FOR UPDATE SKIP LOCKED
)
UPDATE deliveries SET next_attempt_at = now() + make_interval(secs => %(lease)s)
FROM due, webhook_endpoints e
WHERE deliveries.id = due.id AND e.id = deliveries.endpoint_id
RETURNING deliveries.id, deliveries.event_id, deliveries.payload, deliveries.attempts, deliveries.endpoint_id,
          e.url, e.secret, CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END AS previous_secret
"""

RECORD_SUCCESS = """
UPDATE deliveries SET status = 'succeeded', attempts = attempts + 1, finished_at = now(), next_attempt_at = NULL
WHERE id = %(id)s;
UPDATE webhook_endpoints SET failing_since = NULL WHERE id = %(endpoint)s AND failing_since IS NOT NULL;
"""

RECORD_FAILURE = """
UPDATE deliveries SET attempts = attempts + 1,
    status = CASE WHEN %(delay)s::integer IS NULL THEN 'failed' ELSE 'pending' END,
    finished_at = CASE WHEN %(delay)s::integer IS NULL THEN now() END,
    next_attempt_at = now() + make_interval(secs => %(delay)s::integer)
WHERE id = %(id)s;
UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()) WHERE id = %(endpoint)s;
UPDATE webhook_endpoints SET enabled = false, updated_at = now(),
    disabled_reason = 'deliveries failed for ' || %(days)s || ' days, since ' || failing_since
WHERE id = %(endpoint)s AND enabled AND failing_since < now() - make_interval(days => %(days)s);
"""


def delivery_session(settings: EventsSettings) -> aiohttp.ClientSession:
    """Connections to receivers: through the safe resolver, no cookies, no kept-alive connection
    shared with anything of the platform."""
    connector = aiohttp.TCPConnector(
        limit=settings.webhook_concurrency, resolver=SafeResolver(settings.webhook_allowed_networks)
    )
    return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False)


async def read_limited(response: aiohttp.ClientResponse) -> bytes:
    """At most READ_LIMIT_BYTES of the answer; the rest is left unread."""
    body = b""
    while len(body) < READ_LIMIT_BYTES:
        chunk = await response.content.read(READ_LIMIT_BYTES - len(body))
        if not chunk:
            break
        body += chunk
    return body


class Deliverer:
    def __init__(self, pool: aiopg.Pool, settings: EventsSettings, session: aiohttp.ClientSession) -> None:
        self._pool = pool
        self._settings = settings
        self._session = session
        self._in_flight: set[asyncio.Task[None]] = set()
        self._busy: Counter[str] = Counter()
        self._freed = asyncio.Event()

    async def step(self) -> None:
        """Claim what is due, as far as free slots go, send each in a task of its own, then wait
        for a slot to free up (or INTERVAL_SECONDS): a finished send is followed by the next at once."""
        self._freed.clear()
        await self._claim()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._freed.wait(), INTERVAL_SECONDS)

    async def _claim(self) -> None:
        free = self._settings.webhook_concurrency - len(self._in_flight)
        if free <= 0:
            return
        busy = [(endpoint, used) for endpoint, used in self._busy.items() if used]
        params = {
            "limit": free,
            "lease": LEASE_SECONDS,
            "per_endpoint": self._settings.webhook_concurrency_per_endpoint,
            "busy_endpoints": [endpoint for endpoint, _ in busy],
            "busy_counts": [used for _, used in busy],
        }
        async with transaction(self._pool) as cur:
            rows = await fetch_all(cur, CLAIM, params)
        for row in rows:
            endpoint = str(row["endpoint_id"])
            self._busy[endpoint] += 1
            task = watch(asyncio.create_task(self.send(row)), "a webhook delivery")
            self._in_flight.add(task)
            task.add_done_callback(functools.partial(self._finished, endpoint))

    def _finished(self, endpoint: str, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        self._busy[endpoint] -= 1
        if self._busy[endpoint] <= 0:
            del self._busy[endpoint]
        self._freed.set()

    async def send(self, row: Row) -> None:
        body = dumps(row["payload"])
        secrets = [row["secret"], *([row["previous_secret"]] if row["previous_secret"] else [])]
        headers = {
            **signed_headers(secrets, str(row["event_id"]), int(time.time()), body),
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
        }
        attempted_at = time.time()
        started = time.monotonic()
        status: int | None = None
        answer = b""
        error: str | None = None
        try:
            check_host(urlsplit(row["url"]).hostname or "", self._settings.webhook_allowed_networks)
            async with asyncio.timeout(TIMEOUT_SECONDS):
                post = self._session.post(row["url"], data=body, headers=headers, allow_redirects=False)
                async with post as response:
                    status = response.status
                    answer = await read_limited(response)
        except TimeoutError:
            error = f"no answer within {TIMEOUT_SECONDS:g} s"
        except RefusedAddress as exc:
            error = f"refused: {exc}"
        except (aiohttp.ClientError, OSError) as exc:
            error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        latency_ms = round((time.monotonic() - started) * 1000)
        await self.record(row, attempted_at, status, latency_ms, answer, error)

    async def record(
        self, row: Row, attempted_at: float, status: int | None, latency_ms: int, answer: bytes, error: str | None
    ) -> None:
        succeeded = status is not None and 200 <= status < 300
        ATTEMPTS.labels("success" if succeeded else "failure").inc()
        if status is not None and not succeeded and error is None:
            error = f"answered {status}"
        text = answer.decode("utf-8", errors="replace").replace("\x00", "")[:KEPT_RESPONSE_CHARS]
        number = row["attempts"] + 1
        delay = RETRY_DELAYS_SECONDS[number - 1] if number <= len(RETRY_DELAYS_SECONDS) else None
        params: dict[str, Any] = {
            "id": row["id"],
            "endpoint": row["endpoint_id"],
            "delay": delay,
            "days": DISABLE_AFTER_DAYS,
        }
        async with transaction(self._pool) as cur:
            await cur.execute(
                "INSERT INTO delivery_attempts (delivery_id, number, attempted_at, status_code, latency_ms, response,"
                " error) VALUES (%s, %s, to_timestamp(%s), %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (row["id"], number, attempted_at, status, latency_ms, text, error),
            )
            await cur.execute(RECORD_SUCCESS if succeeded else RECORD_FAILURE, params)

    async def finish(self, grace: float) -> None:
        """Let the sends in flight finish for up to `grace` seconds, then cancel the rest (their
        deliveries are due again when their lease ends)."""
        if self._in_flight:
            await asyncio.wait(set(self._in_flight), timeout=grace)
        for task in list(self._in_flight):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._in_flight, return_exceptions=True)


@asynccontextmanager
async def deliverer(pool: aiopg.Pool, settings: EventsSettings) -> AsyncIterator[Deliverer]:
    async with delivery_session(settings) as session:
        worker = Deliverer(pool, settings, session)
        try:
            yield worker
        finally:
            await worker.finish(grace=1.0)
