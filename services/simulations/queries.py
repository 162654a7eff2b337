"""Data access for tasks, environments and runs. Plain async functions, cursor first.

Runs leave the database already in their API shape, as JSON PostgreSQL builds from the `Run`
shape (services/simulations/shapes.py).
"""

from __future__ import annotations

from typing import Any

from libs.common import webhook_outbox
from libs.common.db import Row, fetch_one, fetch_value, json_or_null
from libs.common.encoding import loads
from libs.common.errors import Conflict, ValidationFailed
from libs.contract.internal_bodies import RunIntake
from services.simulations.shapes import RECORDED_ENVIRONMENT, RECORDED_TASK, RUN_JOINS, RUN_JSON

# Filter name -> SQL condition; only these fixed strings ever reach the query text.
RUN_FILTERS = {
    "status": "status = %(status)s",
    "environment_id": "environment_id = %(environment_id)s",
    "task_id": "task_id = %(task_id)s",
    "passed": "passed = %(passed)s",
    "created_from": "created_at >= %(created_from)s",
    "created_to": "created_at < %(created_to)s",
}

# The columns the intake writes: its body's fields, one for one.
RUN_FIELDS = tuple(RunIntake().fields)


async def list_runs(cur: Any, organization_id: str, filters: dict[str, Any], limit: int, offset: int) -> bytes:
    """One organization's live runs, newest first, and the total matching the filters, as JSON: one
    statement, so the page and the total see the same runs."""
    params = {"organization_id": organization_id, "limit": limit, "offset": offset, **filters}
    where = " AND ".join(
        ["organization_id = %(organization_id)s", "deleted_at IS NULL", *(RUN_FILTERS[name] for name in filters)]
    )
    row = await fetch_one(
        cur,
        f"SELECT (SELECT COALESCE(json_agg({RUN_JSON} ORDER BY r.created_at DESC, r.id DESC), '[]')::text"
        f" FROM (SELECT * FROM runs WHERE {where} ORDER BY created_at DESC, id DESC"
        f" LIMIT %(limit)s OFFSET %(offset)s) r {RUN_JOINS}) AS page,"
        f" (SELECT count(*) FROM runs WHERE {where}) AS total",
        params,
    )
    assert row is not None  # a SELECT without FROM has its one row
    page: str = row["page"]
    return b'{"runs":' + page.encode() + b',"total":' + str(row["total"]).encode() + b"}"


async def find_organization_run(cur: Any, organization_id: str, run_id: str) -> bytes | None:
    """One live run of the organization, as JSON; another organization's is None, like a missing one."""
    text: str | None = await fetch_value(
        cur,
        f"SELECT {RUN_JSON}::text FROM runs r {RUN_JOINS}"
        " WHERE r.id = %s AND r.organization_id = %s AND r.deleted_at IS NULL",
        (run_id, organization_id),
    )
    return None if text is None else text.encode()


async def get_run(cur: Any, run_id: str) -> dict[str, Any] | None:
    text = await fetch_value(cur, f"SELECT {RUN_JSON}::text FROM runs r {RUN_JOINS} WHERE r.id = %s", (run_id,))
    return None if text is None else loads(text)


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
        f" ON CONFLICT (id) DO NOTHING RETURNING {RECORDED_TASK.columns}",
        {"id": None, **data},
    )
    if row is None:
        stored = await fetch_one(cur, f"SELECT {RECORDED_TASK.columns} FROM tasks WHERE id = %s", (data["id"],))
        row = _same_organization_or_conflict(stored, data["organization_id"], "task")
    return RECORDED_TASK.of(row)


async def create_environment(cur: Any, data: dict[str, Any]) -> dict[str, Any]:
    """Record an environment of one of the organization's tasks; idempotent by id."""
    await _check_in_organization(cur, "tasks", "taskId", data["task_id"], data["organization_id"])
    inserted = await fetch_value(
        cur,
        "INSERT INTO environments (id, organization_id, task_id, name, agent_config)"
        " VALUES (COALESCE(%(id)s, gen_random_uuid()), %(organization_id)s, %(task_id)s, %(name)s, %(agent_config)s)"
        " ON CONFLICT (id) DO NOTHING RETURNING id",
        {"id": None, **data, "agent_config": json_or_null(data.get("agent_config"))},
    )
    row = await fetch_one(
        cur,
        f"SELECT e.organization_id, {RECORDED_ENVIRONMENT.json_sql('e')} AS environment"
        " FROM environments e JOIN tasks et ON et.id = e.task_id WHERE e.id = %s",
        (inserted or data["id"],),
    )
    found = _same_organization_or_conflict(row, data["organization_id"], "environment")
    environment: dict[str, Any] = found["environment"]
    return environment


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
    if run is None or run["organizationId"] != organization_id:
        raise Conflict("run id already in use")
    if inserted is not None:
        await webhook_outbox.record(cur, "simulation.run.recorded", organization_id, f"run:{run['id']}", run)
    return run, inserted is not None
