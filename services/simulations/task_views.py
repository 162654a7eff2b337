"""Handlers of tasks and environments: each reads its request, then answers what one function of
`task_queries` does in the caller's organization (`_answer`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.schemas import load_json, load_query, path_id
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.simulations import task_queries as queries
from services.simulations.assignments import require_runnable
from services.simulations.task_schemas import (
    AgentConfig,
    EnvironmentCreate,
    EnvironmentListQuery,
    TaskCreate,
    TaskListQuery,
    TaskUpdate,
)

TASK_CREATE, TASK_UPDATE, TASK_LIST_QUERY = TaskCreate(), TaskUpdate(), TaskListQuery()
ENVIRONMENT_CREATE, ENVIRONMENT_LIST_QUERY, AGENT_CONFIG = EnvironmentCreate(), EnvironmentListQuery(), AgentConfig()

Work = Callable[[Any, str], Awaitable[Any]]


async def _answer(request: web.Request, work: Work, *, writes: bool = False, status: int = 200) -> web.Response:
    """`work(cur, organization_id)` in the caller's organization (in a transaction when it writes), as JSON."""
    within = transaction if writes else cursor
    async with within(request.app[DB_POOL]) as cur:
        answer = await work(cur, caller_of(request).org.id)
    return json_response(answer, status=status)


async def simulation_tasks_create(request: web.Request) -> web.Response:
    """POST /api/v1/agent-simulation/tasks: a task of the caller's organization."""
    data = await load_json(request, TASK_CREATE)
    return await _answer(request, lambda cur, org: queries.create_task(cur, org, data), writes=True, status=201)


async def simulation_tasks_list(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/tasks: the organization's tasks, newest first."""
    query = load_query(request, TASK_LIST_QUERY)
    return await _answer(request, lambda cur, org: queries.list_tasks(cur, org, query))


async def simulation_tasks_get(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/tasks/{taskId}: one task."""
    task_id = path_id(request, "taskId", "task")

    async def found(cur: Any, organization_id: str) -> dict[str, Any]:
        return queries.task_view(await queries.find_task(cur, organization_id, task_id))

    return await _answer(request, found)


async def simulation_tasks_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/agent-simulation/tasks/{taskId}: change the fields given; queued runs keep theirs."""
    task_id = path_id(request, "taskId", "task")
    data = await load_json(request, TASK_UPDATE)
    return await _answer(request, lambda cur, org: queries.update_task(cur, org, task_id, data), writes=True)


async def simulation_tasks_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/agent-simulation/tasks/{taskId}: delete the task and its environments; runs stay."""
    task_id = path_id(request, "taskId", "task")

    async def deleted(cur: Any, organization_id: str) -> dict[str, Any]:
        task = queries.task_view(await queries.find_task(cur, organization_id, task_id))
        await queries.delete_task(cur, organization_id, task_id)
        return task

    return await _answer(request, deleted, writes=True)


async def simulation_environments_create(request: web.Request) -> web.Response:
    """POST /api/v1/agent-simulation/environments: an agent and its configuration for a task."""
    data = await load_json(request, ENVIRONMENT_CREATE)
    # Stored as the API shows it, every default filled in: the run reads exactly what was shown.
    data["agent_config"] = AGENT_CONFIG.dump(data["agent_config"])
    require_runnable(data["agent_config"], request.app[SETTINGS].engines)
    return await _answer(request, lambda cur, org: queries.create_environment(cur, org, data), writes=True, status=201)


async def simulation_environments_list(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/environments: the organization's environments, newest first."""
    query = load_query(request, ENVIRONMENT_LIST_QUERY)
    return await _answer(request, lambda cur, org: queries.list_environments(cur, org, query))


async def simulation_environments_get(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/environments/{environmentId}: one environment."""
    environment_id = path_id(request, "environmentId", "environment")
    return await _answer(request, lambda cur, org: queries.find_environment(cur, org, environment_id))
