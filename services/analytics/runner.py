"""The prompt runs' worker: leases tasks of each engine this process can call (within the engine's
concurrency), asks the engine through its SDK (which retries with backoff on rate limits, server
errors and dropped connections, within the timeout), and stores the answer for the analyser.

Each engine also has a start rate (`<VENDOR>_REQUESTS_PER_MINUTE`): calls are spaced so no more
start in a minute, in this process.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta
from typing import Any

from libs.common.db import Row, fetch_value, transaction
from libs.common.engines.reply import Engine, Reply
from libs.common.tasks import report_failure
from services.analytics import run_queries
from services.analytics.settings import AnalyticsSettings

log = logging.getLogger(__name__)


class Spacing:
    """At most `per_minute` starts a minute: each start waits for its turn."""

    def __init__(self, per_minute: int) -> None:
        self._gap = 60.0 / per_minute
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def turn(self) -> None:
        async with self._lock:
            now = time.monotonic()
            wait = self._next - now
            self._next = max(now, self._next) + self._gap
        if wait > 0:
            await asyncio.sleep(wait)


def answer_row(task: Row, reply: Reply) -> dict[str, Any]:
    return {
        "organization_id": task["organization_id"],
        "product_id": task["product_id"],
        "external_id": None,
        "body_sha256": None,
        "source": "run",
        "run_id": task["run_id"],
        "prompt_id": task["prompt_id"],
        "prompt_version": task["prompt_version"],
        "prompt_text": task["prompt_text"],
        "topic_id": task["topic_id"],
        "engine": task["engine"],
        "model": reply.model,
        "status": reply.status,
        "text": reply.text,
        "citations": reply.citations,
        "sources": reply.sources,
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "cost_usd": reply.cost_usd,
        "answered_at": None,
    }


class Runner:
    def __init__(self, pool: Any, engines: dict[str, Engine], settings: AnalyticsSettings, on_answer: Any) -> None:
        self._pool = pool
        self._engines = engines
        self._settings = settings
        self._on_answer = on_answer
        accesses = {access.engine.id: access for access in settings.engines}
        self._free = {engine_id: accesses[engine_id].concurrency for engine_id in engines}
        self._spacing = {engine_id: Spacing(accesses[engine_id].per_minute) for engine_id in engines}
        self._asking: set[asyncio.Task[None]] = set()
        self.woken = asyncio.Event()
        # A lease outlasts every try the SDK makes within its timeout.
        self._lease = timedelta(seconds=settings.engine_timeout_seconds * (settings.engine_retries + 1) + 30)

    def wake(self) -> None:
        self.woken.set()

    async def step(self) -> int:
        """Lease what each engine has room for and start asking; how many tasks were started."""
        self.woken.clear()
        started = 0
        for engine_id, free in self._free.items():
            if free <= 0:
                continue
            async with transaction(self._pool) as cur:
                tasks = await run_queries.claim_tasks(cur, engine_id, free, self._lease)
            for task in tasks:
                self._free[engine_id] -= 1
                asking = asyncio.create_task(self._ask(task), name=f"ask-{engine_id}")
                self._asking.add(asking)
                asking.add_done_callback(self._asking.discard)
            started += len(tasks)
        return started

    async def _ask(self, task: Row) -> None:
        engine_id = task["engine"]
        try:
            await self._spacing[engine_id].turn()
            reply = await self._engines[engine_id].ask(task["prompt_text"])
            answer, error = answer_row(task, reply), None
        except Exception as exc:  # the SDK gave up (after its retries): the task failed, the run goes on
            log.warning("engine %s failed on task %s: %s", engine_id, task["id"], exc)
            answer, error = None, f"{type(exc).__name__}: {exc}"[:1000]
        finally:
            self._free[engine_id] += 1
            self.wake()
        async with transaction(self._pool) as cur:
            if answer is not None:
                answer["answered_at"] = await fetch_value(cur, "SELECT clock_timestamp()")
            await run_queries.finish_task(cur, task, answer, error)
        if answer is not None:
            self._on_answer()

    async def work(self, stopping: asyncio.Event, idle_seconds: float = 1.0) -> None:
        """Steps until `stopping`: again on a wake (a run created, a slot freed) or every `idle_seconds`."""
        while not stopping.is_set():
            try:
                await self.step()
            except Exception as exc:  # a failed round must not end the loop; the next round retries
                report_failure(
                    exc, "starting prompt-run tasks"
                )  # a store's outage: one line at its start, one at its end
            waits = [asyncio.ensure_future(self.woken.wait()), asyncio.ensure_future(stopping.wait())]
            await asyncio.wait(waits, timeout=idle_seconds, return_when=asyncio.FIRST_COMPLETED)
            for waiting in waits:
                waiting.cancel()
        if self._asking:  # answers being asked are waited for: they are paid for
            await asyncio.wait(self._asking, timeout=self._settings.engine_timeout_seconds)
