"""Handlers of the contract's run routes and of the runner's intake (runs recorded elsewhere)."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response, raw_json_response
from libs.common.handlers import owned
from libs.common.schemas import load_endpoint_body, load_query
from libs.common.state import DB_POOL, caller_of
from libs.contract import internal
from services.simulations import queries
from services.simulations.schemas import RunListQuery

RUN_LIST_QUERY = RunListQuery()


async def simulation_runs_list(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/runs: the caller's organization's runs, newest first."""
    query = load_query(request, RUN_LIST_QUERY)
    limit, offset = query.pop("limit"), query.pop("offset")
    async with cursor(request.app[DB_POOL]) as cur:
        body = await queries.list_runs(cur, caller_of(request).org.id, query, limit, offset)
    return raw_json_response(body)


async def simulation_runs_get(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/runs/{runId}: one live run of the caller's organization."""
    return raw_json_response(await owned(request, "runId", "run", queries.find_organization_run))


async def internal_tasks_create(request: web.Request) -> web.Response:
    """POST /internal/tasks: the simulation runner registers a task (idempotent by id)."""
    data = await load_endpoint_body(request, internal.TASKS_CREATE)
    async with transaction(request.app[DB_POOL]) as cur:
        task = await queries.create_task(cur, data)
    return json_response(task, status=201)


async def internal_environments_create(request: web.Request) -> web.Response:
    """POST /internal/environments: the runner registers an environment of a task (idempotent by id)."""
    data = await load_endpoint_body(request, internal.ENVIRONMENTS_CREATE)
    async with transaction(request.app[DB_POOL]) as cur:
        environment = await queries.create_environment(cur, data)
    return json_response(environment, status=201)


async def internal_runs_create(request: web.Request) -> web.Response:
    """POST /internal/runs: the runner records a run; 201 when new, 200 when the id was already recorded."""
    data = await load_endpoint_body(request, internal.RUNS_CREATE)
    async with transaction(request.app[DB_POOL]) as cur:
        run, created = await queries.create_run(cur, data)
    return json_response(run, status=201 if created else 200)
