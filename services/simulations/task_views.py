"""Handlers of tasks and environments."""

from __future__ import annotations

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

TASK_CREATE = TaskCreate()
TASK_UPDATE = TaskUpdate()
TASK_LIST_QUERY = TaskListQuery()
ENVIRONMENT_CREATE = EnvironmentCreate()
ENVIRONMENT_LIST_QUERY = EnvironmentListQuery()
AGENT_CONFIG = AgentConfig()


async def simulation_tasks_create(request: web.Request) -> web.Response:
    """POST /api/v1/agent-simulation/tasks: a task of the caller's organization."""
    data = await load_json(request, TASK_CREATE)
    async with transaction(request.app[DB_POOL]) as cur:
        task = await queries.create_task(cur, caller_of(request).org.id, data)
    return json_response(task, status=201)


async def simulation_tasks_list(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/tasks: the organization's tasks, newest first."""
    query = load_query(request, TASK_LIST_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        return json_response(await queries.list_tasks(cur, caller_of(request).org.id, query))


async def simulation_tasks_get(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/tasks/{taskId}: one task."""
    task_id = path_id(request, "taskId", "task")
    async with cursor(request.app[DB_POOL]) as cur:
        row = await queries.find_task(cur, caller_of(request).org.id, task_id)
    return json_response(queries.task_view(row))


async def simulation_tasks_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/agent-simulation/tasks/{taskId}: change the fields given; queued runs keep theirs."""
    task_id = path_id(request, "taskId", "task")
    data = await load_json(request, TASK_UPDATE)
    async with transaction(request.app[DB_POOL]) as cur:
        task = await queries.update_task(cur, caller_of(request).org.id, task_id, data)
    return json_response(task)


async def simulation_tasks_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/agent-simulation/tasks/{taskId}: delete the task and its environments; runs stay."""
    task_id = path_id(request, "taskId", "task")
    organization_id = caller_of(request).org.id
    async with transaction(request.app[DB_POOL]) as cur:
        task = queries.task_view(await queries.find_task(cur, organization_id, task_id))
        await queries.delete_task(cur, organization_id, task_id)
    return json_response(task)


async def simulation_environments_create(request: web.Request) -> web.Response:
    """POST /api/v1/agent-simulation/environments: an agent and its configuration for a task."""
    data = await load_json(request, ENVIRONMENT_CREATE)
    # Stored as the API shows it, every default filled in: the run reads exactly what was shown.
    data["agent_config"] = AGENT_CONFIG.dump(data["agent_config"])
    require_runnable(data["agent_config"], request.app[SETTINGS].engines)
    async with transaction(request.app[DB_POOL]) as cur:
        environment = await queries.create_environment(cur, caller_of(request).org.id, data)
    return json_response(environment, status=201)


async def simulation_environments_list(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/environments: the organization's environments, newest first."""
    query = load_query(request, ENVIRONMENT_LIST_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        return json_response(await queries.list_environments(cur, caller_of(request).org.id, query))


async def simulation_environments_get(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/environments/{environmentId}: one environment."""
    environment_id = path_id(request, "environmentId", "environment")
    async with cursor(request.app[DB_POOL]) as cur:
        return json_response(await queries.find_environment(cur, caller_of(request).org.id, environment_id))
