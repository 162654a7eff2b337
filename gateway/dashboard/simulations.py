"""/{orgSlug}/simulations: the organization's simulation tasks and environments, forms to add them,
"Run now", and a pass-rate chart; the run page (organization.py) shows a run's steps and verdicts.

Every figure and write is the API's, for the signed-in person (gateway/dashboard/api.py): reading
needs simulations:read, the forms and "Run now" simulations:write (a role without it sees none).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from aiohttp import web

from gateway.dashboard import api
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import flash, render
from libs.common.errors import ApiError
from libs.contract.engines import ENGINES
from services.simulations.agent.scoring import CRITERION_TYPES

LIST_LIMIT = 100
TASK_FIELDS = ("name", "category", "goal", "appId", "referenceAnswer", "stepBudget")
ENVIRONMENT_FIELDS = ("name", "taskId", "entryPoint", "seed", "maxPages", "temperature")
# The agent choices: the deterministic reader, or an `llm` agent on an engine of the catalog.
AGENTS = (("deterministic", "BM25 reader (no model)"), *((f"llm:{e.id}", f"AI engine: {e.name}") for e in ENGINES))


def _criteria(text: str) -> list[dict[str, Any]]:
    """The criteria field: one a line, `type: value`, `?` before the type for one weighed, not required."""
    criteria = []
    for line in text.splitlines():
        kind, sep, value = line.partition(":")
        if not line.strip():
            continue
        optional = kind.strip().startswith("?")
        kind = kind.strip().lstrip("?").strip()
        if not sep or kind not in CRITERION_TYPES or not value.strip():
            types = ", ".join(CRITERION_TYPES)
            raise ValueError(f"Write each criterion as type: value, type one of {types}: {line!r}.")
        criteria.append({"type": kind, "value": value.strip(), "required": not optional})
    return criteria


def pass_rate_by_day(analytics: dict[str, Any]) -> dict[str, Any]:
    """The chart's data (templates/_chart.html): the share of completed runs that passed, in %, for
    every UTC day of the analytics' range; a day without a completed run has no value (a gap, not 0%)."""
    shares = {day["day"]: round(100 * (day["passRate"]["value"] or 0), 1) for day in analytics["days"]}
    first = datetime.fromisoformat(analytics["from"]).date()
    last = (datetime.fromisoformat(analytics["to"]) - timedelta(microseconds=1)).date()
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    return {
        "x": [f"{day}T00:00:00Z" for day in days],
        "series": [{"label": "Passed (%)", "values": [shares.get(day) for day in days]}],
        "yRange": [0, 100],
    }


def _number(text: str, kind: type[int] | type[float]) -> int | float | None:
    return kind(text) if text.strip() else None


async def _page(
    request: web.Request, form: dict[str, Any] | None = None, errors: dict[str, str] | None = None, status: int = 200
) -> web.Response:
    _, membership = await member(request)
    tasks, environments, analytics, apps = await asyncio.gather(
        api.call(request, "simulation_tasks_list", query={"limit": LIST_LIMIT}),
        api.call(request, "simulation_environments_list", query={"limit": LIST_LIMIT}),
        api.call(request, "simulation_analytics"),
        api.call(request, "apps_list") if await api.permits(request, "apps_list") else asyncio.sleep(0, []),
    )
    context = {
        "membership": membership,
        "tasks": tasks["items"],
        "environments": environments["items"],
        "analytics": analytics,
        "chart_data": pass_rate_by_day(analytics),
        "apps": apps,
        "can_write": await api.permits(request, "simulation_tasks_create"),
        "form": form or {},
        "errors": errors or {},
        "criteria_types": CRITERION_TYPES,
        "agents": AGENTS,
    }
    return await render(request, "simulations.html", context, status=status)


async def simulations(request: web.Request) -> web.Response:
    """GET /{orgSlug}/simulations."""
    await member(request)
    await api.require(request, "simulation_tasks_list")
    return await _page(request)


def _refused(error: ApiError, prefix: str) -> dict[str, str]:
    details = error.details if isinstance(error.details, dict) else {}
    return {f"{prefix}.{name}": str(message) for name, message in details.items()} or {f"{prefix}.form": error.message}


async def task_create(request: web.Request) -> web.Response:
    """POST /{orgSlug}/simulations/tasks: the task form."""
    await member(request)
    posted = {key: str(value) for key, value in (await request.post()).items()}
    try:
        body: dict[str, Any] = {name: posted.get(name, "").strip() for name in ("name", "category", "goal", "appId")}
        body["criteria"] = _criteria(posted.get("criteria", ""))
        body["rerunOnChange"] = posted.get("rerunOnChange") == "on"
        if posted.get("referenceAnswer", "").strip():
            body["referenceAnswer"] = posted["referenceAnswer"].strip()
        if (budget := _number(posted.get("stepBudget", ""), int)) is not None:
            body["stepBudget"] = budget
    except ValueError as refused:
        return await _page(request, {"task": posted}, {"task.criteria": str(refused)}, status=422)
    try:
        task = await api.call(request, "simulation_tasks_create", json=body)
    except ApiError as error:
        if error.status != 422:
            raise
        return await _page(request, {"task": posted}, _refused(error, "task"), status=422)
    await flash(request, f"The task {task['name']} is saved: give it an environment to run it.")
    raise web.HTTPSeeOther(f"/{request.match_info['org']}/simulations#environment-form")


async def environment_create(request: web.Request) -> web.Response:
    """POST /{orgSlug}/simulations/environments: the environment form."""
    await member(request)
    posted = {key: str(value) for key, value in (await request.post()).items()}
    try:
        config: dict[str, Any] = {"entryPoint": posted.get("entryPoint") or "llms_txt"}
        agent, _, engine = (posted.get("agent") or "deterministic").partition(":")
        config.update({"kind": agent, "engine": engine} if engine else {"kind": agent})
        for name, kind in (("seed", int), ("maxPages", int), ("temperature", float)):
            if (value := _number(posted.get(name, ""), kind)) is not None:
                config[name] = value
    except ValueError:
        refused = {"environment.form": "Seed, pages and temperature are numbers."}
        return await _page(request, {"environment": posted}, refused, status=422)
    body = {"name": posted.get("name", "").strip(), "taskId": posted.get("taskId", ""), "agentConfig": config}
    try:
        environment = await api.call(request, "simulation_environments_create", json=body)
    except ApiError as error:
        if error.status != 422:
            raise
        return await _page(request, {"environment": posted}, _refused(error, "environment"), status=422)
    await flash(request, f"The environment {environment['name']} is saved: run it now.")
    raise web.HTTPSeeOther(f"/{request.match_info['org']}/simulations#environments-heading")


async def run_now(request: web.Request) -> web.Response:
    """POST /{orgSlug}/simulations/environments/{environment}/run: queue its trials, open the first run."""
    await member(request)
    posted = await request.post()
    trials = str(posted.get("trials", "1")) or "1"
    body = {"environmentId": request.match_info["environment"], "trials": int(trials) if trials.isdigit() else 0}
    try:
        runs = (await api.call(request, "simulation_runs_create", json=body))["runs"]
    except ApiError as error:
        if error.status != 422:
            raise
        await flash(request, f"Not run: {error.message}")
        raise web.HTTPSeeOther(f"/{request.match_info['org']}/simulations#environments-heading") from None
    await flash(request, f"{len(runs)} run{'s' if len(runs) != 1 else ''} queued.")
    raise web.HTTPSeeOther(f"/{request.match_info['org']}/runs/{runs[0]['id']}")


def add_routes(router: web.UrlDispatcher) -> None:
    base = f"/{ORG}/simulations"
    router.add_get(base, simulations, name="dashboard.simulations")
    router.add_post(base + "/tasks", task_create, name="dashboard.simulation_task_create")
    router.add_post(base + "/environments", environment_create, name="dashboard.simulation_environment_create")
    router.add_post(base + "/environments/{environment}/run", run_now, name="dashboard.simulation_run_now")
