"""The part's workers: each process takes queued runs (services/simulations/queue.py), runs the
environment's agent over the App's published documents, judges the answer, and records every
step as it happens and the result at the end. A run changes no content: the agent only reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from typing import Any

import aiopg

from libs.common.clients import AppsClient
from libs.common.db import transaction
from libs.common.encoding import dumps
from libs.common.engines.catalog import engines
from libs.common.http_client import InternalClient
from libs.common.internal_token import Organization, service_caller
from libs.common.object_store import object_store
from services.simulations import queue
from services.simulations.agent import readiness, scoring
from services.simulations.agent.fetcher import AppsFetcher, RunFetcher
from services.simulations.agent.kinds import AgentRefused, agent_for
from services.simulations.agent.steps import AgentConfig, Assignment, Outcome, Step
from services.simulations.contract import COMPLETED, FAILED
from services.simulations.settings import SimulationsSettings
from services.simulations.shapes import LOGGED_STEP

log = logging.getLogger(__name__)

# A step log is JSON Lines: one step a line, in order.
LOG_TYPE = "application/jsonl"


def assignment_of(metadata: dict[str, Any]) -> Assignment:
    """The trial's assignment as `queue.enqueue` fixed it in the run's metadata."""
    fixed = metadata["assignment"]
    config = fixed["agentConfig"]
    return Assignment(
        goal=fixed["goal"],
        criteria=fixed["criteria"],
        step_budget=fixed["stepBudget"],
        config=AgentConfig(
            kind=config["kind"],
            entry_point=config["entryPoint"],
            max_steps=config["maxSteps"],
            max_bytes=config["maxBytes"],
            max_tokens=config["maxTokens"],
            max_pages=config["maxPages"],
            user_agent=config["userAgent"],
            seed=config["seed"],
            temperature=config["temperature"],
            engine=config.get("engine"),
        ),
        seed=int(metadata["seed"]),
    )


def result_of(assignment: Assignment, outcome: Outcome, checks: dict[str, bool]) -> dict[str, Any]:
    judged = scoring.Judged(
        outcome.answer.short if outcome.answer else None,
        outcome.answer.text if outcome.answer else None,
        outcome.answer_path,
        outcome.visited,
    )
    verdicts, score, passed = scoring.score(assignment.criteria, judged)
    return {
        "status": COMPLETED,
        "score": score,
        "passed": passed,
        "tokens": outcome.tokens,
        "cost": outcome.cost,
        "snapshot": outcome.snapshot,
        "verdicts": verdicts,
        "metadata": {
            "answer": outcome.answer.short if outcome.answer else None,
            "answerPage": outcome.answer_path,
            "stopped": outcome.stopped,
            "bytesRead": outcome.bytes,
            "visited": list(outcome.visited),
            "readiness": checks,
            "criteria": [verdict.view() for verdict in verdicts],
        },
    }


class Worker:
    """Takes up to `worker_concurrency` runs at once from the shared queue, renewing their leases."""

    def __init__(self, pool: aiopg.Pool, http: InternalClient, settings: SimulationsSettings) -> None:
        self._pool = pool
        self._settings = settings
        self._apps = AppsClient(http, settings.apps_url)
        self._logs = object_store(settings.log_store, pool, settings.db_schema)
        self.name = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._running: set[asyncio.Task[None]] = set()
        # One client per configured engine, for the runs of `llm` agents; a worker takes only the runs
        # whose engine it holds a key for (queue.take).
        self._engines = engines(settings.engines, settings.engine_timeout_seconds, settings.engine_retries)

    async def take_step(self) -> None:
        """Take queued runs while this worker has room (a periodic step)."""
        settings = self._settings
        while len(self._running) < settings.worker_concurrency:
            async with transaction(self._pool) as cur:
                taken = await queue.take(
                    cur, self.name, settings.organization_concurrency, settings.lease_seconds, list(self._engines)
                )
            if taken is None:
                return
            task = asyncio.create_task(self._execute(taken), name=f"simulation-run-{taken['id']}")
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def reap_step(self) -> None:
        async with transaction(self._pool) as cur:
            reaped = await queue.reap(cur, self._settings.max_attempts)
        if reaped:
            log.warning("took back %d simulation runs whose worker stopped renewing its lease", reaped)

    async def stop(self) -> None:
        """Stop the runs in progress; their leases lapse and another worker takes them again."""
        for task in self._running:
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        for client in self._engines.values():
            await client.close()

    async def _execute(self, taken: dict[str, Any]) -> None:
        run_id, attempt = taken["id"], taken["attempts"]
        work = asyncio.create_task(self._perform(taken))
        try:
            while not (await asyncio.wait({work}, timeout=self._settings.lease_seconds / 3))[0]:
                async with transaction(self._pool) as cur:
                    still_ours = await queue.renew(cur, run_id, self.name, attempt, self._settings.lease_seconds)
                if not still_ours:  # cancelled, or given up for lost and taken again
                    work.cancel()
                    break
            with contextlib.suppress(asyncio.CancelledError):
                await work
        except Exception as exc:
            log.exception("simulation run %s failed", run_id)
            await self._release(run_id, attempt, f"{type(exc).__name__}: {exc}")
        finally:
            if not work.done():  # this worker is stopping: the run's lease lapses and it is taken again
                work.cancel()
                await asyncio.wait({work})

    async def _perform(self, taken: dict[str, Any]) -> None:
        run_id, attempt, organization_id = taken["id"], taken["attempts"], taken["organization_id"]
        trajectory: list[Step] = []

        async def record(step: Step) -> None:
            trajectory.append(step)
            async with transaction(self._pool) as cur:
                await queue.add_step(cur, run_id, attempt, len(trajectory), step)

        try:
            assignment = assignment_of(taken["metadata"])
            agent = agent_for(assignment.config, self._engines)
        except AgentRefused as refused:
            await self._fail(run_id, attempt, str(refused))
            return
        caller = service_caller(self._settings.name, Organization(organization_id, "", ""), f"run-{run_id}")
        fetcher = RunFetcher(AppsFetcher(self._apps, caller, taken["sandbox_id"], assignment.config.user_agent))
        ready = await readiness.check(fetcher, assignment.config.user_agent, record)
        outcome = await agent(assignment, fetcher, ready, record)
        result = result_of(assignment, outcome, ready.checks)
        for verdict in result.pop("verdicts"):
            await record(Step("judge", verdict.type, None, None, 0, 0, verdict.holds, verdict.view()))
        result["log"] = await self._keep_log(organization_id, run_id, attempt, trajectory)
        async with transaction(self._pool) as cur:
            await queue.finish(cur, run_id, self.name, attempt, result)

    async def _keep_log(
        self, organization_id: str, run_id: str, attempt: int, trajectory: list[Step]
    ) -> dict[str, str]:
        """Write the attempt's step log, one JSON step a line, to the object store; what `logS3Keys`
        says of it. One key per attempt: an attempt that lost its run never overwrites another's log."""
        key = f"simulations/{organization_id}/runs/{run_id}/{attempt}/steps.jsonl"
        lines = (LOGGED_STEP.of({**vars(step), "seq": seq}) for seq, step in enumerate(trajectory, start=1))
        body = b"".join(dumps(line) + b"\n" for line in lines)
        await self._logs.put(key, body, LOG_TYPE)
        return {"store": self._logs.name, "steps": key}

    async def _release(self, run_id: str, attempt: int, error: str) -> None:
        """After an error: queue the run again while it has attempts left, else fail it saying why."""
        if attempt < self._settings.max_attempts:
            async with transaction(self._pool) as cur:
                await queue.requeue(cur, run_id, self.name, attempt)
        else:
            await self._fail(run_id, attempt, f"the run failed {attempt} times; the last error: {error}")

    async def _fail(self, run_id: str, attempt: int, error: str) -> None:
        result = {
            "status": FAILED,
            "score": None,
            "passed": None,
            "tokens": 0,
            "cost": 0.0,
            "snapshot": None,
            "metadata": {"error": error},
            "log": None,
        }
        async with transaction(self._pool) as cur:
            await queue.finish(cur, run_id, self.name, attempt, result)
