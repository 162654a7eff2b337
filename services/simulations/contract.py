"""The simulations service's public routes.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.event import Event
from libs.contract.route import Route
from services.simulations import schemas as simulations
from services.simulations import task_schemas as s

PART = "simulations"
BASE = "/api/v1/agent-simulation"
TAG = "Agent simulation"
READ, WRITE = "simulations:read", "simulations:write"
# A run's states: waiting in the queue, taken by a worker, and the three a run ends in.
QUEUED, RUNNING, COMPLETED, FAILED, CANCELLED = "queued", "running", "completed", "failed", "cancelled"
RUN_STATUSES = (QUEUED, RUNNING, COMPLETED, FAILED, CANCELLED)

ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        f"{BASE}/runs",
        PART,
        READ,
        "simulation_runs_list",
        "List the organization's agent-simulation runs, newest first",
        query=simulations.RunListQuery,
        response=simulations.RunList,
        tag=TAG,
    ),
    Route(
        "GET",
        f"{BASE}/runs/{{runId}}",
        PART,
        READ,
        "simulation_runs_get",
        "One of the organization's agent-simulation runs",
        response=simulations.Run,
        tag=TAG,
    ),
    Route(
        "POST",
        f"{BASE}/runs",
        PART,
        WRITE,
        "simulation_runs_create",
        "Queue runs of an environment, one per trial, each with its own seed",
        body=s.RunsRequest,
        response=s.QueuedRuns,
        status=202,
        tag=TAG,
    ),
    Route(
        "POST",
        f"{BASE}/runs/{{runId}}/cancel",
        PART,
        WRITE,
        "simulation_runs_cancel",
        "Cancel a queued or running run",
        response=simulations.Run,
        tag=TAG,
    ),
    Route(
        "GET",
        f"{BASE}/runs/{{runId}}/steps",
        PART,
        READ,
        "simulation_runs_steps",
        "A run's steps: readiness checks, fetches, ranking, reads, the answer and each criterion's verdict",
        query=s.StepListQuery,
        response=s.StepList,
        tag=TAG,
    ),
    Route(
        "GET",
        f"{BASE}/analytics",
        PART,
        READ,
        "simulation_analytics",
        "Pass rate, pass^k, mean score and median steps and bytes per task and environment over a time range",
        query=s.AnalyticsQuery,
        response=s.Analytics,
        tag=TAG,
    ),
    Route(
        "POST",
        f"{BASE}/tasks",
        PART,
        WRITE,
        "simulation_tasks_create",
        "Create a task: what an agent is asked of an App, and how its answer is judged",
        body=s.TaskCreate,
        response=s.Task,
        status=201,
        tag=TAG,
    ),
    Route(
        "GET",
        f"{BASE}/tasks",
        PART,
        READ,
        "simulation_tasks_list",
        "List the organization's tasks, newest first",
        query=s.TaskListQuery,
        response=s.TaskList,
        tag=TAG,
    ),
    Route("GET", f"{BASE}/tasks/{{taskId}}", PART, READ, "simulation_tasks_get", "One task", response=s.Task, tag=TAG),
    Route(
        "PATCH",
        f"{BASE}/tasks/{{taskId}}",
        PART,
        WRITE,
        "simulation_tasks_update",
        "Change a task; runs already queued keep what they were asked",
        body=s.TaskUpdate,
        response=s.Task,
        tag=TAG,
    ),
    Route(
        "DELETE",
        f"{BASE}/tasks/{{taskId}}",
        PART,
        WRITE,
        "simulation_tasks_delete",
        "Delete a task and its environments; their runs stay readable",
        response=s.Task,
        tag=TAG,
    ),
    Route(
        "POST",
        f"{BASE}/environments",
        PART,
        WRITE,
        "simulation_environments_create",
        "Create an environment: the agent, its configuration and the task it serves",
        body=s.EnvironmentCreate,
        response=s.Environment,
        status=201,
        tag=TAG,
    ),
    Route(
        "GET",
        f"{BASE}/environments",
        PART,
        READ,
        "simulation_environments_list",
        "List the organization's environments, newest first",
        query=s.EnvironmentListQuery,
        response=s.EnvironmentList,
        tag=TAG,
    ),
    Route(
        "GET",
        f"{BASE}/environments/{{environmentId}}",
        PART,
        READ,
        "simulation_environments_get",
        "One environment",
        response=s.Environment,
        tag=TAG,
    ),
)

EVENTS: tuple[Event, ...] = (
    Event("simulation.run.recorded", "An agent-simulation run was recorded.", simulations.Run, "Agent simulation"),
    Event(
        "simulation.run.completed",
        "An agent-simulation run ended, completed or failed; its score and verdicts are in the run.",
        simulations.Run,
        "Agent simulation",
    ),
)
