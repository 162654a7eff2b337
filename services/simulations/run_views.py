"""Handlers that queue, cancel and show the steps of runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import Conflict, NotFound, ValidationFailed
from libs.common.schemas import load_json, load_query, path_id
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.simulations import analytics, queries, queue, step_queries
from services.simulations.assignments import assignment_for, require_runnable
from services.simulations.state import WAKE
from services.simulations.task_schemas import AnalyticsQuery, RunsRequest, StepListQuery

RUNS_REQUEST = RunsRequest()
STEP_LIST_QUERY = StepListQuery()
ANALYTICS_QUERY = AnalyticsQuery()
DEFAULT_RANGE = timedelta(days=30)
MAX_RANGE = timedelta(days=366)


async def simulation_runs_create(request: web.Request) -> web.Response:
    """POST /api/v1/agent-simulation/runs: queue `trials` runs of an environment; 202 with them."""
    data = await load_json(request, RUNS_REQUEST)
    organization_id = caller_of(request).org.id
    async with transaction(request.app[DB_POOL]) as cur:
        environment, assignment = await assignment_for(cur, organization_id, data["environment_id"])
        require_runnable(assignment["agentConfig"], request.app[SETTINGS].engines)
        runs = await queue.enqueue(cur, organization_id, environment, assignment, data["trials"], "api")
    request.app[WAKE].set()
    return json_response({"runs": runs}, status=202)


async def simulation_runs_cancel(request: web.Request) -> web.Response:
    """POST /api/v1/agent-simulation/runs/{runId}/cancel: stop a queued or running run."""
    run_id = path_id(request, "runId", "run")
    async with transaction(request.app[DB_POOL]) as cur:
        was = await queue.cancel(cur, caller_of(request).org.id, run_id)
        if was is None:
            raise NotFound("run not found")
        if was in queue.ENDED:
            raise Conflict(f"the run has already ended ({was})")
        run = await queries.get_run(cur, run_id)
    return json_response(run)


async def simulation_runs_steps(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/runs/{runId}/steps: the run's trajectory, in order."""
    run_id = path_id(request, "runId", "run")
    query = load_query(request, STEP_LIST_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        if await queries.find_organization_run(cur, caller_of(request).org.id, run_id) is None:
            raise NotFound("run not found")
        return json_response(await step_queries.list_steps(cur, run_id, query))


async def simulation_analytics(request: web.Request) -> web.Response:
    """GET /api/v1/agent-simulation/analytics: pass rate, pass^k and more per task and environment."""
    query = load_query(request, ANALYTICS_QUERY)
    end = query.pop("end", None) or datetime.now(UTC)
    start = query.pop("start", None) or end - DEFAULT_RANGE
    if not start < end or end - start > MAX_RANGE:
        raise ValidationFailed(details={"from": "The range must start before it ends and span at most 366 days."})
    async with cursor(request.app[DB_POOL]) as cur:
        answer = await analytics.analytics(cur, caller_of(request).org.id, start, end, query)
    return json_response(answer)
