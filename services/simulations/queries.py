"""Data access for tasks, environments and runs. Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_all, fetch_one, fetch_value, json_or_null
from libs.common.errors import Conflict, ValidationFailed

RUN_COLUMNS = """
    r.id, r.environment_id, r.task_id, r.organization_id, r.status, r.sandbox_id, r.sandbox_snapshot,
    r.overall_score, r.passed, r.tokens_used, r.cost_usd, r.started_at, r.completed_at, r.created_at,
    r.updated_at, r.deleted_at, r.duration, r.volume_ids, r.log_s3_keys, r.metadata,
    e.name AS environment_name, e.agent_config AS environment_agent_config,
    et.id AS environment_task_id, et.name AS environment_task_name, et.category AS environment_task_category,
    t.name AS task_name, t.category AS task_category
"""

RUN_JOINS = """
    FROM runs r
    JOIN environments e ON e.id = r.environment_id
    JOIN tasks et ON et.id = e.task_id
    JOIN tasks t ON t.id = r.task_id
"""

# Filter name -> SQL condition; only these fixed strings ever reach the query text.
RUN_FILTERS = {
    "status": "r.status = %(status)s",
    "environment_id": "r.environment_id = %(environment_id)s",
    "task_id": "r.task_id = %(task_id)s",
    "passed": "r.passed = %(passed)s",
}

RUN_FIELDS = (
    "id", "environment_id", "task_id", "organization_id", "status", "sandbox_id", "sandbox_snapshot",
    "overall_score", "passed", "tokens_used", "cost_usd", "started_at", "completed_at", "duration",
    "volume_ids", "log_s3_keys", "metadata",
)  # fmt: skip


def run_from_row(row: Row) -> dict[str, Any]:
    """A run in its API shape, with its environment (and the environment's task) and its task."""
    return {
        "id": row["id"],
        "environmentId": row["environment_id"],
        "taskId": row["task_id"],
        "organizationId": row["organization_id"],
        "status": row["status"],
        "sandboxId": row["sandbox_id"],
        "sandboxSnapshot": row["sandbox_snapshot"],
        "overallScore": row["overall_score"],
        "passed": row["passed"],
        "tokensUsed": row["tokens_used"],
        "costUsd": row["cost_usd"],
        "startedAt": row["started_at"],
        "completedAt": row["completed_at"],
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
        "deletedAt": row["deleted_at"],
        "duration": row["duration"],
        "volumeIds": row["volume_ids"],
        "logS3Keys": row["log_s3_keys"],
        "metadata": row["metadata"],
        "environment": {
            "id": row["environment_id"],
            "name": row["environment_name"],
            "agentConfig": row["environment_agent_config"],
            "task": {
                "id": row["environment_task_id"],
                "name": row["environment_task_name"],
                "category": row["environment_task_category"],
            },
        },
        "task": {"id": row["task_id"], "name": row["task_name"], "category": row["task_category"]},
    }


async def list_runs(cur: Any, organization_id: str, filters: dict[str, Any], limit: int, offset: int) -> dict[str, Any]:
    """One organization's live runs, newest first, with the total matching the filters."""
    params = {"organization_id": organization_id, "limit": limit, "offset": offset, **filters}
    conditions = ["r.organization_id = %(organization_id)s", "r.deleted_at IS NULL"]
    conditions += [RUN_FILTERS[name] for name in filters]
    where = " AND ".join(conditions)
    rows = await fetch_all(
        cur,
        f"SELECT {RUN_COLUMNS} {RUN_JOINS} WHERE {where}"
        " ORDER BY r.created_at DESC, r.id DESC LIMIT %(limit)s OFFSET %(offset)s",
        params,
    )
    total = await fetch_value(cur, f"SELECT count(*) FROM runs r WHERE {where}", params)
    return {"runs": [run_from_row(row) for row in rows], "total": total}


async def get_run(cur: Any, run_id: str) -> dict[str, Any] | None:
    row = await fetch_one(cur, f"SELECT {RUN_COLUMNS} {RUN_JOINS} WHERE r.id = %s", (run_id,))
    return None if row is None else run_from_row(row)


def _task_from_row(row: Row) -> dict[str, Any]:
    return {k: row[k] for k in ("id", "name", "category")} | {"organizationId": row["organization_id"]}


def _environment_from_row(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "organizationId": row["organization_id"],
        "name": row["name"],
        "agentConfig": row["agent_config"],
        "task": {"id": row["task_id"], "name": row["task_name"], "category": row["task_category"]},
    }


def _same_organization_or_conflict(row: Row | None, organization_id: str, what: str) -> Row:
    """An id given by the caller that already exists is a replay when it is the same organization's."""
    if row is None or str(row["organization_id"]) != organization_id:
        raise Conflict(f"{what} id already in use")
    return row


async def _check_in_organization(cur: Any, table: str, field: str, row_id: str, organization_id: str) -> None:
    found = await fetch_value(
        cur,
        f"SELECT 1 FROM {table} WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (row_id, organization_id),
    )
    if found is None:
        raise ValidationFailed(details={field: f"No such {table[:-1]} in this organization."})


async def create_task(cur: Any, data: dict[str, Any]) -> dict[str, Any]:
    """Record a task; replaying the same id for the same organization returns the stored task."""
    row = await fetch_one(
        cur,
        "INSERT INTO tasks (id, organization_id, name, category)"
        " VALUES (COALESCE(%(id)s, gen_random_uuid()), %(organization_id)s, %(name)s, %(category)s)"
        " ON CONFLICT (id) DO NOTHING RETURNING *",
        {"id": data.get("id"), **data},
    )
    if row is None:
        row = _same_organization_or_conflict(
            await fetch_one(cur, "SELECT * FROM tasks WHERE id = %s", (data["id"],)), data["organization_id"], "task"
        )
    return _task_from_row(row)


async def create_environment(cur: Any, data: dict[str, Any]) -> dict[str, Any]:
    """Record an environment of one of the organization's tasks; idempotent by id."""
    await _check_in_organization(cur, "tasks", "taskId", data["task_id"], data["organization_id"])
    inserted = await fetch_value(
        cur,
        "INSERT INTO environments (id, organization_id, task_id, name, agent_config)"
        " VALUES (COALESCE(%(id)s, gen_random_uuid()), %(organization_id)s, %(task_id)s, %(name)s, %(agent_config)s)"
        " ON CONFLICT (id) DO NOTHING RETURNING id",
        {"id": data.get("id"), **data, "agent_config": json_or_null(data.get("agent_config"))},
    )
    environment_id = inserted or data["id"]
    row = await fetch_one(
        cur,
        "SELECT e.*, t.name AS task_name, t.category AS task_category"
        " FROM environments e JOIN tasks t ON t.id = e.task_id WHERE e.id = %s",
        (environment_id,),
    )
    return _environment_from_row(_same_organization_or_conflict(row, data["organization_id"], "environment"))


async def create_run(cur: Any, data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Record a run; returns the run and whether it was new (a replayed id returns the stored run)."""
    organization_id = data["organization_id"]
    await _check_in_organization(cur, "environments", "environmentId", data["environment_id"], organization_id)
    await _check_in_organization(cur, "tasks", "taskId", data["task_id"], organization_id)
    values = {name: data.get(name) for name in RUN_FIELDS}
    for name in ("volume_ids", "log_s3_keys", "metadata"):
        values[name] = json_or_null(values[name])
    columns = ", ".join(RUN_FIELDS)
    placeholders = ", ".join(
        "COALESCE(%(id)s, gen_random_uuid())" if name == "id" else f"%({name})s" for name in RUN_FIELDS
    )
    inserted = await fetch_value(
        cur,
        f"INSERT INTO runs ({columns}) VALUES ({placeholders}) ON CONFLICT (id) DO NOTHING RETURNING id",
        values,
    )
    run = await get_run(cur, inserted or data["id"])
    if run is None or str(run["organizationId"]) != organization_id:
        raise Conflict("run id already in use")
    return run, inserted is not None
