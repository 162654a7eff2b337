"""The run queue in PostgreSQL: runs are queued rows, taken by workers with `FOR UPDATE SKIP
LOCKED` (no two take the same run) under a lease they renew while the run lasts.

- **Taking.** The oldest queued run of an organization with fewer than its limit of running
  runs; the organization's count is read again under a transaction-scoped advisory lock of the
  organization, so two workers taking at once never exceed the limit together.
- **Leases.** A worker renews its lease every third of it; a run whose lease lapsed (its worker
  died or hung) is queued again, or failed once it was taken `max_attempts` times, by whichever
  worker reaps first. Nothing stays `running` without a live worker.
- **Finishing** is guarded by the worker and attempt that took the run: a worker that lost its
  lease (and whose run was taken again, or cancelled) changes nothing.
"""

from __future__ import annotations

from typing import Any

from libs.common import webhook_outbox
from libs.common.db import Row, fetch_all, fetch_one, fetch_value, json_or_null
from services.simulations.agent.steps import Step
from services.simulations.contract import CANCELLED, COMPLETED, FAILED
from services.simulations.queries import get_run

COMPLETED_EVENT = "simulation.run.completed"
ENDED = (COMPLETED, FAILED, CANCELLED)


async def enqueue(
    cur: Any, organization_id: str, environment: Row, assignment: dict[str, Any], trials: int, trigger: str
) -> list[dict[str, Any]]:
    """Queue `trials` runs of the environment, each with its seed; the assignment (goal, criteria,
    budget, agent) is fixed in each run's metadata, so a later edit of the task changes no queued run."""
    seed = int(assignment["agentConfig"]["seed"])
    ids = await fetch_all(
        cur,
        "INSERT INTO runs"
        " (organization_id, environment_id, task_id, status, sandbox_id, trial, seed, trigger, metadata)"
        " SELECT %(org)s, %(environment)s, %(task)s, 'queued', %(app)s, n, %(seed)s + n - 1, %(trigger)s,"
        "   jsonb_build_object('trial', n, 'seed', %(seed)s + n - 1, 'trigger', %(trigger)s,"
        "                      'assignment', %(assignment)s::jsonb)"
        " FROM generate_series(1, %(trials)s) AS n ORDER BY n RETURNING id::text",
        {
            "org": organization_id,
            "environment": environment["id"],
            "task": environment["task_id"],
            "app": assignment["appId"],
            "seed": seed,
            "trigger": trigger,
            "trials": trials,
            "assignment": json_or_null(assignment),
        },
    )
    runs = [await get_run(cur, row["id"]) for row in ids]
    return [run for run in runs if run is not None]


async def take(cur: Any, worker: str, organization_limit: int, lease_seconds: int, engines: list[str]) -> Row | None:
    """Take the next queued run this worker may run (in a transaction): an agent needing no engine,
    or one of `engines` (those this worker holds a key for); None when there is none."""
    candidate = await fetch_one(
        cur,
        "SELECT r.id::text, r.organization_id::text FROM runs r"
        " WHERE r.status = 'queued' AND r.deleted_at IS NULL"
        " AND (r.metadata #>> '{assignment,agentConfig,kind}' IS DISTINCT FROM 'llm'"
        "   OR r.metadata #>> '{assignment,agentConfig,engine}' = ANY(%s)) AND ("
        "   SELECT count(*) FROM runs x WHERE x.organization_id = r.organization_id AND x.status = 'running') < %s"
        " ORDER BY r.created_at, r.id LIMIT 1 FOR UPDATE OF r SKIP LOCKED",
        (engines, organization_limit),
    )
    if candidate is None:
        return None
    await cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 35))", (candidate["organization_id"],))
    running = await fetch_value(
        cur,
        "SELECT count(*) FROM runs WHERE organization_id = %s AND status = 'running'",
        (candidate["organization_id"],),
    )
    if running >= organization_limit:
        return None
    return await fetch_one(
        cur,
        "UPDATE runs SET status = 'running', attempts = attempts + 1, worker = %s,"
        " lease_until = clock_timestamp() + make_interval(secs => %s),"
        " started_at = clock_timestamp(), updated_at = clock_timestamp()"
        " WHERE id = %s RETURNING id::text, organization_id::text, attempts, metadata, sandbox_id::text",
        (worker, lease_seconds, candidate["id"]),
    )


async def renew(cur: Any, run_id: str, worker: str, attempt: int, lease_seconds: int) -> bool:
    """Extend the lease; False when the run is no longer this worker's (cancelled, or taken again)."""
    renewed = await fetch_value(
        cur,
        "UPDATE runs SET lease_until = clock_timestamp() + make_interval(secs => %s)"
        " WHERE id = %s AND status = 'running' AND worker = %s AND attempts = %s RETURNING 1",
        (lease_seconds, run_id, worker, attempt),
    )
    return renewed is not None


async def requeue(cur: Any, run_id: str, worker: str, attempt: int) -> None:
    """Put a run this worker holds back in the queue (after an error, with attempts left)."""
    await cur.execute(
        "UPDATE runs SET status = 'queued', worker = NULL, lease_until = NULL, updated_at = clock_timestamp()"
        " WHERE id = %s AND status = 'running' AND worker = %s AND attempts = %s",
        (run_id, worker, attempt),
    )


async def reap(cur: Any, max_attempts: int) -> int:
    """Queue again the runs whose lease lapsed, or fail those taken `max_attempts` times; how many."""
    failed = await fetch_all(
        cur,
        "UPDATE runs SET status = CASE WHEN attempts < %(max)s THEN 'queued' ELSE 'failed' END,"
        " worker = NULL, lease_until = NULL, updated_at = clock_timestamp(),"
        " completed_at = CASE WHEN attempts < %(max)s THEN NULL ELSE clock_timestamp() END,"
        " metadata = CASE WHEN attempts < %(max)s THEN metadata ELSE metadata || jsonb_build_object("
        "   'error', 'its worker stopped answering ' || attempts || ' times; the run was given up') END"
        " WHERE id IN (SELECT id FROM runs WHERE status = 'running' AND lease_until < clock_timestamp()"
        "   FOR UPDATE SKIP LOCKED)"
        " RETURNING id::text, organization_id::text, status",
        {"max": max_attempts},
    )
    for row in failed:
        if row["status"] == FAILED:
            await _announce(cur, row["id"], row["organization_id"])
    return len(failed)


async def add_step(cur: Any, run_id: str, attempt: int, seq: int, step: Step) -> None:
    await cur.execute(
        "INSERT INTO run_steps (run_id, attempt, seq, kind, name, url, status, bytes, tokens, ok, detail, elapsed_ms)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (
            run_id,
            attempt,
            seq,
            step.kind,
            step.name,
            step.url,
            step.status,
            step.bytes,
            step.tokens,
            step.ok,
            json_or_null(step.detail),
            step.elapsed_ms,
        ),
    )


async def finish(cur: Any, run_id: str, worker: str, attempt: int, result: dict[str, Any]) -> bool:
    """Record the run's end (`result`: status, score, passed, tokens, snapshot, metadata to merge, and
    where its step log is kept, `log`, None without one);
    False when the run is no longer this worker's to finish."""
    finished = await fetch_value(
        cur,
        "UPDATE runs SET status = %(status)s, overall_score = %(score)s, passed = %(passed)s,"
        " tokens_used = %(tokens)s, cost_usd = %(cost)s, sandbox_snapshot = %(snapshot)s, log_s3_keys = %(log)s,"
        " completed_at = clock_timestamp(), updated_at = clock_timestamp(),"
        " duration = extract(epoch FROM clock_timestamp() - started_at),"
        " metadata = metadata || %(metadata)s::jsonb, worker = NULL, lease_until = NULL"
        " WHERE id = %(id)s AND status = 'running' AND worker = %(worker)s AND attempts = %(attempt)s"
        " RETURNING organization_id::text",
        {
            **result,
            "metadata": json_or_null(result["metadata"]),
            "log": json_or_null(result.get("log")),
            "id": run_id,
            "worker": worker,
            "attempt": attempt,
        },
    )
    if finished is None:
        return False
    await _announce(cur, run_id, finished)
    return True


async def _announce(cur: Any, run_id: str, organization_id: str) -> None:
    run = await get_run(cur, run_id)
    assert run is not None
    await webhook_outbox.record(cur, COMPLETED_EVENT, organization_id, f"run:{run_id}", run)


async def cancel(cur: Any, organization_id: str, run_id: str) -> str | None:
    """Cancel a queued or running run; the state it was in (None when not found, an end state when ended)."""
    row = await fetch_one(
        cur,
        "SELECT status FROM runs WHERE id = %s AND organization_id = %s AND deleted_at IS NULL FOR UPDATE",
        (run_id, organization_id),
    )
    if row is None or row["status"] in ENDED:
        return None if row is None else str(row["status"])
    await cur.execute(
        "UPDATE runs SET status = 'cancelled', worker = NULL, lease_until = NULL, completed_at = clock_timestamp(),"
        " updated_at = clock_timestamp(), duration = extract(epoch FROM clock_timestamp() - started_at)"
        " WHERE id = %s",
        (run_id,),
    )
    return str(row["status"])
