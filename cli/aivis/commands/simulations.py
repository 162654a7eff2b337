"""`aivis simulations`: tasks, environments, running them, a run's steps, and the analytics."""

from __future__ import annotations

import time
from typing import Any

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.errors import EXIT_VALIDATION, CliError
from aivis.inputs import compact, text_or_file
from aivis.output import json_option, plural, print_json, short_id, when
from aivis.paging import cursor_option, print_page
from aivis.resolve import app, resolver, run

BASE = "/api/v1/agent-simulation"


def _collection(path: str, key: str) -> tuple[Endpoint, Endpoint, Endpoint]:
    """A collection's list, create and get."""
    return Endpoint("GET", path), Endpoint("POST", path), Endpoint("GET", f"{path}/{{{key}}}")


TASKS, TASK_CREATE, TASK = _collection(f"{BASE}/tasks", "taskId")
TASK_UPDATE = Endpoint("PATCH", TASK.path)
TASK_DELETE = Endpoint("DELETE", TASK.path)
ENVIRONMENTS, ENVIRONMENT_CREATE, ENVIRONMENT = _collection(f"{BASE}/environments", "environmentId")
RUNS_CREATE = Endpoint("POST", f"{BASE}/runs")
RUN = Endpoint("GET", f"{BASE}/runs/{{runId}}")
CANCEL = Endpoint("POST", f"{BASE}/runs/{{runId}}/cancel")
STEPS = Endpoint("GET", f"{BASE}/runs/{{runId}}/steps")
ANALYTICS = Endpoint("GET", f"{BASE}/analytics")

CRITERIA = ["must_include", "exact_match", "regex", "page_reached", "url_visited"]
ENDED = ("completed", "failed", "cancelled")
TASK_COLUMNS = (short_id(), "name", "category", "goal", when("createdAt"))
TASK_FIELDS = (
    "id",
    "name",
    "category",
    "goal",
    "appId",
    "criteria",
    "referenceAnswer",
    "stepBudget",
    "rerunOnChange",
    "createdAt",
    "updatedAt",
)
ENVIRONMENT_COLUMNS = (short_id(), "name", "task.name", "agentConfig.kind", "agentConfig.seed", when("createdAt"))
RUN_COLUMNS = (short_id(), "status", "passed", "overallScore", "metadata.trial", "metadata.answer")
STEP_COLUMNS = ("seq", "kind", "name", "url", "status", "bytes", "tokens", "ok")
WAIT_SECONDS = 0.5


def _criterion(text: str, required: bool) -> dict[str, Any]:
    kind, sep, value = text.partition("=")
    if not sep or kind not in CRITERIA or not value:
        raise CliError(f"a criterion is TYPE=VALUE, TYPE one of {', '.join(CRITERIA)}: got {text!r}", EXIT_VALIDATION)
    return {"type": kind, "value": value, "required": required}


@click.group()
def simulations() -> None:
    """Agent simulations: tasks, environments, runs and their steps (scopes simulations:read, :write)."""


@simulations.group()
def tasks() -> None:
    """What an agent is asked of an App, and how its answer is judged."""


@tasks.command("list")
@click.option("--app", "app_id", callback=resolver(app), help="Only this App's tasks (its id or short id).")
@click.option("--limit", type=int)
@cursor_option
@json_option
@pass_context
def tasks_list(context: Context, app_id: str | None, limit: int | None, cursor: str | None, as_json: bool) -> None:
    """List tasks, newest first."""
    data = context.api().call(TASKS, query=compact(appId=app_id, limit=limit, cursor=cursor))
    print_page(context.out, data["items"], TASK_COLUMNS, as_json, data["nextCursor"], "task")


@tasks.command("create")
@click.option("--name", required=True)
@click.option("--category", required=True)
@click.option("--goal", required=True, help="What the agent is asked (or @file).")
@click.option("--app", "app_id", required=True, callback=resolver(app), help="The App it visits.")
@click.option("--must", "required", multiple=True, help="A required criterion TYPE=VALUE (repeat).")
@click.option("--weigh", "weighed", multiple=True, help="A criterion weighed in the score, TYPE=VALUE (repeat).")
@click.option("--reference-answer")
@click.option("--step-budget", type=int)
@click.option("--rerun-on-change/--no-rerun-on-change", default=None)
@json_option
@pass_context
def tasks_create(
    context: Context,
    name: str,
    category: str,
    goal: str,
    app_id: str,
    required: tuple[str, ...],
    weighed: tuple[str, ...],
    reference_answer: str | None,
    step_budget: int | None,
    rerun_on_change: bool | None,
    as_json: bool,
) -> None:
    """Create a task; criteria are e.g. `--must must_include='$49' --weigh page_reached=/pricing`."""
    criteria = [_criterion(text, True) for text in required] + [_criterion(text, False) for text in weighed]
    body = compact(
        name=name,
        category=category,
        goal=text_or_file(goal),
        appId=app_id,
        criteria=criteria,
        referenceAnswer=reference_answer,
        stepBudget=step_budget,
        rerunOnChange=rerun_on_change,
    )
    context.out.record(context.api().call(TASK_CREATE, body=body), TASK_FIELDS, as_json)


@tasks.command("get")
@click.argument("task_id")
@json_option
@pass_context
def tasks_get(context: Context, task_id: str, as_json: bool) -> None:
    """Show one task."""
    context.out.record(context.api().call(TASK, taskId=task_id), TASK_FIELDS, as_json)


@tasks.command("update")
@click.argument("task_id")
@click.option("--name")
@click.option("--goal")
@click.option("--step-budget", type=int)
@click.option("--rerun-on-change/--no-rerun-on-change", default=None)
@json_option
@pass_context
def tasks_update(
    context: Context,
    task_id: str,
    name: str | None,
    goal: str | None,
    step_budget: int | None,
    rerun_on_change: bool | None,
    as_json: bool,
) -> None:
    """Change a task; runs already queued keep what they were asked."""
    body = compact(name=name, goal=text_or_file(goal), stepBudget=step_budget, rerunOnChange=rerun_on_change)
    context.out.record(context.api().call(TASK_UPDATE, taskId=task_id, body=body), TASK_FIELDS, as_json)


@tasks.command("delete")
@click.argument("task_id")
@json_option
@pass_context
def tasks_delete(context: Context, task_id: str, as_json: bool) -> None:
    """Delete a task and its environments; their runs stay."""
    context.out.record(context.api().call(TASK_DELETE, taskId=task_id), ("id", "name"), as_json)


@simulations.group()
def environments() -> None:
    """The agent, its configuration and the task it serves."""


@environments.command("list")
@click.option("--task", "task_id", help="Only this task's environments.")
@click.option("--limit", type=int)
@cursor_option
@json_option
@pass_context
def environments_list(
    context: Context, task_id: str | None, limit: int | None, cursor: str | None, as_json: bool
) -> None:
    """List environments, newest first."""
    data = context.api().call(ENVIRONMENTS, query=compact(taskId=task_id, limit=limit, cursor=cursor))
    print_page(context.out, data["items"], ENVIRONMENT_COLUMNS, as_json, data["nextCursor"], "environment")


@environments.command("create")
@click.option("--task", "task_id", required=True)
@click.option("--name", required=True)
@click.option("--kind", type=click.Choice(["deterministic", "llm"]))
@click.option("--engine", help="The AI engine of an llm agent: openai-search, perplexity-sonar or anthropic-web.")
@click.option("--entry-point", type=click.Choice(["llms_txt", "sitemap"]))
@click.option("--seed", type=int)
@click.option("--temperature", type=float)
@click.option("--max-pages", type=int)
@click.option("--max-steps", type=int)
@click.option("--user-agent")
@json_option
@pass_context
def environments_create(
    context: Context,
    task_id: str,
    name: str,
    kind: str | None,
    engine: str | None,
    entry_point: str | None,
    seed: int | None,
    temperature: float | None,
    max_pages: int | None,
    max_steps: int | None,
    user_agent: str | None,
    as_json: bool,
) -> None:
    """Create an environment; what is not given takes the API's default."""
    config = compact(
        kind=kind,
        engine=engine,
        entryPoint=entry_point,
        seed=seed,
        temperature=temperature,
        maxPages=max_pages,
        maxSteps=max_steps,
        userAgent=user_agent,
    )
    environment = context.api().call(ENVIRONMENT_CREATE, body={"taskId": task_id, "name": name, "agentConfig": config})
    context.out.record(environment, ("id", "name", "task", "agentConfig"), as_json)


@environments.command("get")
@click.argument("environment_id")
@json_option
@pass_context
def environments_get(context: Context, environment_id: str, as_json: bool) -> None:
    """Show one environment."""
    environment = context.api().call(ENVIRONMENT, environmentId=environment_id)
    context.out.record(environment, ("id", "name", "task", "agentConfig", "createdAt"), as_json)


@simulations.command("run")
@click.argument("environment_id")
@click.option("--trials", type=int, help="How many runs, each with its own seed (1-20, default 1).")
@click.option("--wait", is_flag=True, help="Wait until every run has ended, then show them.")
@json_option
@pass_context
def simulations_run(context: Context, environment_id: str, trials: int | None, wait: bool, as_json: bool) -> None:
    """Queue runs of an environment (and with --wait, show how they ended)."""
    api = context.api()
    body = compact(environmentId=environment_id, trials=trials)
    runs: list[dict[str, Any]] = api.call(RUNS_CREATE, body=body)["runs"]
    while wait and any(item["status"] not in ENDED for item in runs):
        time.sleep(WAIT_SECONDS)
        runs = [item if item["status"] in ENDED else api.call(RUN, runId=item["id"]) for item in runs]
    passed = sum(1 for item in runs if item["passed"])
    note = plural(len(runs), "run") + (f", {passed} passed" if wait else " queued")
    context.out.items(runs, RUN_COLUMNS, as_json, note=note)


@simulations.command("steps")
@click.argument("run_id", callback=resolver(run))
@json_option
@pass_context
def simulations_steps(context: Context, run_id: str, as_json: bool) -> None:
    """A run's steps: readiness checks, fetches, the ranking, reads, the answer, each criterion's verdict."""
    api, steps, cursor = context.api(), [], None
    while True:
        page = api.call(STEPS, runId=run_id, query=compact(cursor=cursor))
        steps += page["items"]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    context.out.items(steps, STEP_COLUMNS, as_json, note=plural(len(steps), "step"))


@simulations.command("cancel")
@click.argument("run_id", callback=resolver(run))
@json_option
@pass_context
def simulations_cancel(context: Context, run_id: str, as_json: bool) -> None:
    """Cancel a queued or running run."""
    context.out.record(context.api().call(CANCEL, runId=run_id), ("id", "status"), as_json)


@simulations.command("analytics")
@click.option("--from", "start", help="ISO 8601 with a zone; default 30 days before --to.")
@click.option("--to", "end", help="ISO 8601 with a zone; default now.")
@click.option("--task", "task_id")
@click.option("--environment", "environment_id")
@json_option
@pass_context
def simulations_analytics(
    context: Context, start: str | None, end: str | None, task_id: str | None, environment_id: str | None, as_json: bool
) -> None:
    """Pass rate and pass^k per task and environment."""
    data = context.api().call(
        ANALYTICS, query=compact(taskId=task_id, environmentId=environment_id, **{"from": start, "to": end})
    )
    if as_json:
        print_json(data)
        return
    rows = [
        {
            "task": group["task"]["name"],
            "environment": group["environment"]["name"],
            "runs": group["runs"],
            "passRate": group["passRate"]["value"],
            "meanScore": group["meanScore"]["value"],
            "pass^k": " ".join(f"{item['value']:.2f}" for item in group["passHatK"]),
        }
        for group in data["groups"]
    ]
    context.out.table(rows, ("task", "environment", "runs", "passRate", "meanScore", "pass^k"))
    context.out.note(f"{plural(data['overall']['runs'], 'completed run')} from {data['from']} to {data['to']}")


def register(root: click.Group) -> None:
    root.add_command(simulations)
