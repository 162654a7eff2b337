"""Data access for prompt runs and their tasks. A task's answer, its task's end and its run's
counters are written in one transaction, so a run's progress is never ahead of its answers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from libs.common.cursors import NewestFirst
from libs.common.db import Row, fetch_all, fetch_one
from services.analytics import queries
from services.analytics.shapes import PROMPT_RUN

RUNS = NewestFirst("created_at", "id")
RUN_COLUMNS = PROMPT_RUN.columns
TASK_COLUMNS = (
    "id, run_id, organization_id, product_id, prompt_id, prompt_version, prompt_text, topic_id, engine, sample,"
    " attempts"
)
# A run's status once its tasks are all done or failed (a cancelled run stays cancelled).
FINISHED = (
    "CASE WHEN status = 'cancelled' THEN 'cancelled'"
    " WHEN tasks_done + tasks_failed < tasks_total THEN 'running'"
    " WHEN tasks_failed = 0 THEN 'completed' WHEN tasks_done = 0 THEN 'failed' ELSE 'partial' END"
)


async def create_run(
    cur: Any, organization_id: str, product_id: str, trigger: str, tasks: list[dict[str, Any]], samples: int
) -> Row:
    """A run of `tasks` (each: prompt id, version, text, topic id, engine, sample), queued."""
    prompt_ids = list(dict.fromkeys(task["prompt_id"] for task in tasks))
    engines = sorted({task["engine"] for task in tasks})
    run = await fetch_one(
        cur,
        "INSERT INTO prompt_runs (organization_id, product_id, trigger, prompt_ids, engines, samples, tasks_total)"
        f" VALUES (%s, %s, %s, %s::uuid[], %s, %s, %s) RETURNING {RUN_COLUMNS}",
        (organization_id, product_id, trigger, prompt_ids, engines, samples, len(tasks)),
    )
    assert run is not None
    await cur.execute(
        "INSERT INTO run_tasks (run_id, organization_id, product_id, prompt_id, prompt_version, prompt_text,"
        " topic_id, engine, sample)"
        " SELECT %s, %s, %s, prompt_id, prompt_version, prompt_text, topic_id, engine, sample"
        " FROM unnest(%s::uuid[], %s::int[], %s::text[], %s::uuid[], %s::text[], %s::int[])"
        " AS task (prompt_id, prompt_version, prompt_text, topic_id, engine, sample)",
        (
            run["id"],
            organization_id,
            product_id,
            [task["prompt_id"] for task in tasks],
            [task["prompt_version"] for task in tasks],
            [task["prompt_text"] for task in tasks],
            [task["topic_id"] for task in tasks],
            [task["engine"] for task in tasks],
            [task["sample"] for task in tasks],
        ),
    )
    return run


async def get_run(cur: Any, organization_id: str, run_id: str) -> Row | None:
    return await fetch_one(
        cur, f"SELECT {RUN_COLUMNS} FROM prompt_runs WHERE id = %s AND organization_id = %s", (run_id, organization_id)
    )


async def list_runs(cur: Any, organization_id: str, query: dict[str, Any]) -> tuple[list[Row], str | None]:
    where = ["organization_id = %(org)s"]
    if "product_id" in query:
        where.append("product_id = %(product_id)s")
    if "status" in query:
        where.append("status = %(status)s")
    where += RUNS.where(query)
    rows = await fetch_all(
        cur,
        f"SELECT {RUN_COLUMNS} FROM prompt_runs WHERE {' AND '.join(where)} {RUNS.order}",
        {
            "org": organization_id,
            "product_id": query.get("product_id"),
            "status": query.get("status"),
            **RUNS.params(query),
        },
    )
    return RUNS.page(rows, query)


async def cancel_run(cur: Any, organization_id: str, run_id: str) -> Row | None:
    """Cancel a run not finished: its waiting tasks are dropped; those being asked end as they do.
    The tasks are locked before their run, in the order a claim takes them, so a cancel and a
    claim at once never deadlock. A finished run has no waiting task: its cancel changes nothing."""
    await cur.execute(
        "UPDATE run_tasks SET status = 'cancelled' WHERE run_id = %s AND organization_id = %s AND status = 'queued'",
        (run_id, organization_id),
    )
    return await fetch_one(
        cur,
        "UPDATE prompt_runs SET status = 'cancelled', finished_at = coalesce(finished_at, clock_timestamp())"
        " WHERE id = %s AND organization_id = %s AND status IN ('queued', 'running')"
        f" RETURNING {RUN_COLUMNS}",
        (run_id, organization_id),
    )


async def claim_tasks(cur: Any, engine: str, count: int, lease: timedelta) -> list[Row]:
    """Lease up to `count` tasks of `engine` (waiting, or on a lapsed lease) of runs not cancelled,
    oldest run first; their runs are marked running."""
    tasks = await fetch_all(
        cur,
        f"UPDATE run_tasks SET status = 'running', leased_until = now() + %s, attempts = attempts + 1"
        " WHERE id IN (SELECT t.id FROM run_tasks t JOIN prompt_runs r ON r.id = t.run_id"
        "  WHERE t.engine = %s AND r.status IN ('queued', 'running')"
        "  AND (t.status = 'queued' OR (t.status = 'running' AND t.leased_until < now()))"
        "  ORDER BY r.created_at, t.id LIMIT %s FOR UPDATE OF t SKIP LOCKED)"
        f" RETURNING {TASK_COLUMNS}",
        (lease, engine, count),
    )
    if tasks:
        await cur.execute(
            "UPDATE prompt_runs SET status = 'running', started_at = coalesce(started_at, clock_timestamp())"
            " WHERE id = ANY(%s::uuid[]) AND status = 'queued'",
            (list({str(task["run_id"]) for task in tasks}),),
        )
    return tasks


async def finish_task(cur: Any, task: Row, answer: dict[str, Any] | None, error: str | None) -> Row | None:
    """Record a task's answer (stored as an answer of its run) or its error, and count it in its
    run; the answer's row when one was stored. A task no longer leased (its run cancelled meanwhile
    leaves it running) is still recorded: the answer was paid for."""
    stored = None
    if answer is not None:
        stored = await queries.insert_answer(cur, answer)
    await cur.execute(
        "UPDATE run_tasks SET status = %s, error = %s, answer_id = %s, leased_until = NULL WHERE id = %s",
        ("done" if stored else "failed", error, stored["id"] if stored else None, task["id"]),
    )
    await cur.execute(
        "UPDATE prompt_runs SET tasks_done = tasks_done + %(done)s, tasks_failed = tasks_failed + %(failed)s,"
        " input_tokens = input_tokens + %(input)s, output_tokens = output_tokens + %(output)s,"
        " cost_usd = cost_usd + %(cost)s WHERE id = %(run)s",
        {
            "done": int(stored is not None),
            "failed": int(stored is None),
            "input": (answer or {}).get("input_tokens") or 0,
            "output": (answer or {}).get("output_tokens") or 0,
            "cost": (answer or {}).get("cost_usd") or 0,
            "run": task["run_id"],
        },
    )
    await cur.execute(
        f"UPDATE prompt_runs SET status = {FINISHED},"
        f" finished_at = CASE WHEN {FINISHED} = 'running' THEN NULL"
        " ELSE coalesce(finished_at, clock_timestamp()) END"
        " WHERE id = %s",
        (task["run_id"],),
    )
    return stored


async def periods_taken(cur: Any, period: str, prompt_ids: list[str]) -> set[str]:
    rows = await fetch_all(
        cur,
        "SELECT prompt_id::text FROM scheduled_periods WHERE period = %s AND prompt_id = ANY(%s::uuid[])",
        (period, prompt_ids),
    )
    return {row["prompt_id"] for row in rows}


async def take_period(cur: Any, prompt_id: str, period: str, run_id: str) -> bool:
    """Whether this caller is the one to run the prompt in `period` (the first to record it)."""
    taken = await fetch_one(
        cur,
        "INSERT INTO scheduled_periods (prompt_id, period, run_id) VALUES (%s, %s, %s)"
        " ON CONFLICT DO NOTHING RETURNING prompt_id",
        (prompt_id, period, run_id),
    )
    return taken is not None
