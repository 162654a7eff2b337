"""Sending deliveries: claim what is due, post it signed, record the attempt, schedule the next.

Every worker of every replica runs a `Deliverer`. Deliveries are claimed in a transaction (`FOR
UPDATE SKIP LOCKED`) by moving their `next_attempt_at` a lease ahead (`WEBHOOK_LEASE_SECONDS`,
60), so no other worker takes them while they are in flight and a worker that dies mid-send
leaves them due again when the lease ends (at least once). A claim takes up to twice what may be
sent at once, so each endpoint has a short queue ready when a send finishes and one claim serves
several sends; the claim loop is woken when a quarter of an endpoint's queue went out, and when
new events were stored. Each delivery is sent by a task of its own, up to `WEBHOOK_CONCURRENCY` at once and
up to `WEBHOOK_CONCURRENCY_PER_ENDPOINT` (8) to one endpoint: a slow or dead endpoint holds at
most its own share of the slots, each for at most the 10 s timeout, never the others'. The
connections to an endpoint are kept alive between sends (aiohttp's pool). Attempts are recorded
in batches (services/events/attempts.py). Deliveries of one resource to one endpoint go out one
at a time, in the order their events arrived: a later one is not claimed while an earlier one is
pending, which it stays until its attempt is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import Counter, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import aiohttp
import aiopg

from libs.common.address_policy import RefusedAddress, SafeResolver, check_host
from libs.common.db import Row, fetch_all, transaction
from libs.common.encoding import dumps
from libs.common.tasks import report_failure, watch
from services.events.attempts import Attempt, Recorder
from services.events.settings import EventsSettings
from services.events.signing import signed_headers

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 10.0
READ_LIMIT_BYTES = 64 * 1024
# With nothing to wake it, the claim loop looks for due deliveries (retries) this often.
INTERVAL_SECONDS = 0.1
# A worker claims up to this many times what it may send at once (per endpoint, and in all).
CLAIMED_AHEAD = 2
USER_AGENT = "aivis-webhooks/1"

# Due deliveries, oldest first, at most `per_endpoint` claimed for one endpoint by this worker
# (`busy`: the endpoints it holds claimed deliveries of and how many), none behind a pending earlier delivery
# of the same resource to the same endpoint. The endpoints whose places are all taken (`full`) are
# left out before anything is ranked: a slow endpoint's backlog is not read again by every claim.
CLAIM = """
WITH candidates AS (
    SELECT d.id, d.endpoint_id, d.next_attempt_at,
           row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.seq) AS rank
    FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND e.enabled AND e.deleted_at IS NULL
      AND d.endpoint_id <> ALL(%(full_endpoints)s::uuid[])
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
RETURNING deliveries.id, deliveries.seq, deliveries.event_id, deliveries.payload, deliveries.attempts,
          deliveries.endpoint_id, e.url, e.secret,
          CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END AS previous_secret
"""

# Claimed deliveries a stopping worker did not send: due again at once, not when their lease ends.
RELEASE = """
UPDATE deliveries SET next_attempt_at = now() WHERE id = ANY(%(ids)s::uuid[]) AND status = 'pending'
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
        self._recorder = Recorder(pool)
        # Claimed deliveries not sent yet, by endpoint, oldest first; and the sends under way.
        self._queued: dict[str, deque[Row]] = {}
        self._sending: Counter[str] = Counter()
        self._in_flight: set[asyncio.Task[None]] = set()
        self._wanted = asyncio.Event()
        # Claimed ahead for one endpoint at most (sending and queued), and in all.
        self._ahead = settings.webhook_concurrency_per_endpoint * CLAIMED_AHEAD
        self._ahead_in_all = settings.webhook_concurrency * CLAIMED_AHEAD

    def start(self) -> None:
        self._recorder.start()

    def wake(self) -> None:
        """Claim again now: deliveries were queued (new events), or places to fill freed up."""
        self._wanted.set()

    async def step(self) -> None:
        """Claim what is due as far as the places go; when that filled them, claim again at once,
        else wait to be woken (a send finished, events arrived) or INTERVAL_SECONDS (retries
        coming due)."""
        self._wanted.clear()
        if await self._claim():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wanted.wait(), INTERVAL_SECONDS)

    def _held(self, endpoint: str) -> int:
        return self._sending[endpoint] + len(self._queued.get(endpoint, ()))

    async def _claim(self) -> bool:
        """Claim due deliveries into the endpoints' queues and start what may be sent; whether
        every place asked for was filled (so more may be due)."""
        held = {endpoint: self._held(endpoint) for endpoint in set(self._sending) | set(self._queued)}
        free = self._ahead_in_all - sum(held.values())
        if free <= 0:
            return False
        busy = [(endpoint, count) for endpoint, count in held.items() if count]
        params = {
            "limit": free,
            "lease": self._settings.webhook_lease_seconds,
            "per_endpoint": self._ahead,
            "busy_endpoints": [endpoint for endpoint, _ in busy],
            "busy_counts": [count for _, count in busy],
            "full_endpoints": [endpoint for endpoint, count in busy if count >= self._ahead],
        }
        async with transaction(self._pool) as cur:
            rows = await fetch_all(cur, CLAIM, params)
        for row in sorted(rows, key=lambda row: row["seq"]):
            self._queued.setdefault(str(row["endpoint_id"]), deque()).append(row)
        self._start_sends()
        return len(rows) == free

    def _start_sends(self) -> None:
        """Start the queued deliveries each endpoint has places for, within the worker's."""
        for endpoint, queue in list(self._queued.items()):
            while queue and self._sending[endpoint] < self._settings.webhook_concurrency_per_endpoint:
                if len(self._in_flight) >= self._settings.webhook_concurrency:
                    return
                row = queue.popleft()
                self._sending[endpoint] += 1
                task = watch(asyncio.create_task(self.send(row)), "a webhook delivery")
                self._in_flight.add(task)
                task.add_done_callback(functools.partial(self._finished, endpoint))
            if not queue:
                del self._queued[endpoint]

    def _finished(self, endpoint: str, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        self._sending[endpoint] -= 1
        if self._sending[endpoint] <= 0:
            del self._sending[endpoint]
        self._start_sends()
        # Claim more once a quarter of what was claimed ahead for the endpoint went out: a claim
        # serves several sends, and the queue does not run dry while one is under way.
        if self._held(endpoint) <= self._ahead - self._ahead // 4:
            self._wanted.set()

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
        self._recorder.add(
            Attempt(
                str(row["id"]),
                str(row["endpoint_id"]),
                row["attempts"] + 1,
                attempted_at,
                latency_ms,
                status,
                answer,
                error,
            )
        )

    async def finish(self, grace: float) -> None:
        """Let the sends in flight finish for up to `grace` seconds, then cancel the rest (their
        deliveries are due again when their lease ends); give back the claimed ones not sent,
        and record the attempts made."""
        queued = [str(row["id"]) for queue in self._queued.values() for row in queue]
        self._queued.clear()
        if self._in_flight:
            await asyncio.wait(set(self._in_flight), timeout=grace)
        for task in list(self._in_flight):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._in_flight, return_exceptions=True)
        await self._recorder.close()
        if queued:
            try:
                async with transaction(self._pool) as cur:
                    await cur.execute(RELEASE, {"ids": queued})
            except Exception as exc:  # they are due again when their lease ends
                report_failure(exc, "giving back claimed webhook deliveries")


@asynccontextmanager
async def deliverer(pool: aiopg.Pool, settings: EventsSettings) -> AsyncIterator[Deliverer]:
    async with delivery_session(settings) as session:
        worker = Deliverer(pool, settings, session)
        worker.start()
        try:
            yield worker
        finally:
            await worker.finish(grace=1.0)
