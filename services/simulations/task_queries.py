"""Data access for tasks and environments of the public API. Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from libs.common.cursors import page_of
from libs.common.db import Row, fetch_all, fetch_one, json_or_null
from libs.common.errors import NotFound, ValidationFailed
from services.simulations.shapes import ENVIRONMENT_RESOURCE, TASK_RESOURCE

TASK_COLUMNS = TASK_RESOURCE.columns
TASK_FIELDS = ("name", "category", "goal", "app_id", "criteria", "reference_answer", "step_budget", "rerun_on_change")
ENVIRONMENT_COLUMNS = ENVIRONMENT_RESOURCE.columns_of("e")


def task_view(row: Row) -> dict[str, Any]:
    return TASK_RESOURCE.of(row)


def environment_view(row: Row) -> dict[str, Any]:
    return ENVIRONMENT_RESOURCE.of(row)


def _values(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "criteria": json_or_null(data["criteria"])} if "criteria" in data else data


async def create_task(cur: Any, organization_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """A new task; `data` may name its id (the demo seed's fixed ones)."""
    row = await fetch_one(
        cur,
        f"INSERT INTO tasks (id, organization_id, {', '.join(TASK_FIELDS)})"
        f" VALUES (COALESCE(%(id)s, gen_random_uuid()), %(organization_id)s,"
        f" {', '.join(f'%({name})s' for name in TASK_FIELDS)}) RETURNING {TASK_COLUMNS}",
        {"id": None, **_values(data), "organization_id": organization_id},
    )
    assert row is not None
    return task_view(row)


async def find_task(cur: Any, organization_id: str, task_id: str, *, lock: bool = False) -> Row:
    row = await fetch_one(
        cur,
        f"SELECT {TASK_COLUMNS} FROM tasks WHERE id = %s AND organization_id = %s AND deleted_at IS NULL"
        + (" FOR UPDATE" if lock else ""),
        (task_id, organization_id),
    )
    if row is None:
        raise NotFound("task not found")
    return row


async def update_task(cur: Any, organization_id: str, task_id: str, data: dict[str, Any]) -> dict[str, Any]:
    await find_task(cur, organization_id, task_id, lock=True)
    if not data:
        return task_view(await find_task(cur, organization_id, task_id))
    sets = ", ".join(f"{name} = %({name})s" for name in TASK_FIELDS if name in data)
    row = await fetch_one(
        cur,
        f"UPDATE tasks SET {sets}, updated_at = clock_timestamp() WHERE id = %(id)s RETURNING {TASK_COLUMNS}",
        {**_values(data), "id": task_id},
    )
    assert row is not None
    return task_view(row)


async def delete_task(cur: Any, organization_id: str, task_id: str) -> None:
    """Soft-delete the task and its environments; their runs stay readable."""
    await find_task(cur, organization_id, task_id, lock=True)
    await cur.execute(
        "UPDATE tasks SET deleted_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = %s", (task_id,)
    )
    await cur.execute(
        "UPDATE environments SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()"
        " WHERE task_id = %s AND deleted_at IS NULL",
        (task_id,),
    )


async def list_tasks(cur: Any, organization_id: str, query: dict[str, Any]) -> dict[str, Any]:
    where = ["organization_id = %(org)s", "deleted_at IS NULL"]
    where += [f"{column} = %({column})s" for column in ("app_id", "category") if column in query]
    if query.get("cursor"):
        where.append("(created_at, id) < (%(after_at)s, %(after_id)s)")
    after = query.get("cursor") or (None, None)
    rows = await fetch_all(
        cur,
        f"SELECT {TASK_COLUMNS} FROM tasks WHERE {' AND '.join(where)} ORDER BY created_at DESC, id DESC"
        " LIMIT %(limit)s",
        {**query, "org": organization_id, "after_at": after[0], "after_id": after[1], "limit": query["limit"] + 1},
    )
    page, next_cursor = page_of(rows, query["limit"], lambda row: (row["created_at"], row["id"]))
    return {"items": [task_view(row) for row in page], "nextCursor": next_cursor}


async def create_environment(cur: Any, organization_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """A new environment of one of the organization's tasks; `data` may name its id."""
    try:
        await find_task(cur, organization_id, data["task_id"])
    except NotFound:
        raise ValidationFailed(details={"taskId": "No such task in this organization."}) from None
    row = await fetch_one(
        cur,
        "WITH e AS (INSERT INTO environments (id, organization_id, task_id, name, agent_config)"
        " VALUES (COALESCE(%s, gen_random_uuid()), %s, %s, %s, %s) RETURNING *)"
        f" SELECT {ENVIRONMENT_COLUMNS} FROM e JOIN tasks t ON t.id = e.task_id",
        (data.get("id"), organization_id, data["task_id"], data["name"], json_or_null(data["agent_config"])),
    )
    assert row is not None
    return environment_view(row)


async def find_environment(cur: Any, organization_id: str, environment_id: str) -> dict[str, Any]:
    row = await fetch_one(
        cur,
        f"SELECT {ENVIRONMENT_COLUMNS} FROM environments e JOIN tasks t ON t.id = e.task_id"
        " WHERE e.id = %s AND e.organization_id = %s AND e.deleted_at IS NULL",
        (environment_id, organization_id),
    )
    if row is None:
        raise NotFound("environment not found")
    return environment_view(row)


async def list_environments(cur: Any, organization_id: str, query: dict[str, Any]) -> dict[str, Any]:
    where = ["e.organization_id = %(org)s", "e.deleted_at IS NULL"]
    if "task_id" in query:
        where.append("e.task_id = %(task_id)s")
    if query.get("cursor"):
        where.append("(e.created_at, e.id) < (%(after_at)s, %(after_id)s)")
    after = query.get("cursor") or (None, None)
    rows = await fetch_all(
        cur,
        f"SELECT {ENVIRONMENT_COLUMNS} FROM environments e JOIN tasks t ON t.id = e.task_id"
        f" WHERE {' AND '.join(where)} ORDER BY e.created_at DESC, e.id DESC LIMIT %(limit)s",
        {**query, "org": organization_id, "after_at": after[0], "after_id": after[1], "limit": query["limit"] + 1},
    )
    page, next_cursor = page_of(rows, query["limit"], lambda row: (row["created_at"], row["id"]))
    return {"items": [environment_view(row) for row in page], "nextCursor": next_cursor}
