"""`aivis runs` (agent-simulation runs) and `aivis search` (semantic search of content)."""

from __future__ import annotations

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option, plural, print_json, short_id, span, when
from aivis.resolve import RUNS, product_option, resolver, run

RUN = Endpoint("GET", "/api/v1/agent-simulation/runs/{runId}")
SEARCH = Endpoint("POST", "/api/v1/content/search/{orgId}")
RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"]  # what the simulation runner records
RUN_COLUMNS = (short_id(), "status", "passed", "overallScore", "task.name", when("createdAt"))
RUN_FIELDS = (
    "id",
    "status",
    "passed",
    "overallScore",
    "task.name",
    "environment.name",
    "tokensUsed",
    "costUsd",
    "duration",
    "startedAt",
    "completedAt",
    "createdAt",
)


@click.group()
def runs() -> None:
    """Agent-simulation runs of the organization (a run is named by its id or its short id)."""


@runs.command("list")
@click.option("--status", type=click.Choice(RUN_STATUSES))
@click.option("--environment", "environment_id", help="Only this environment's runs.")
@click.option("--task", "task_id", help="Only this task's runs.")
@click.option("--passed/--failed", "passed", default=None)
@click.option("--limit", type=int)
@click.option("--offset", type=int)
@json_option
@pass_context
def runs_list(
    context: Context,
    status: str | None,
    environment_id: str | None,
    task_id: str | None,
    passed: bool | None,
    limit: int | None,
    offset: int | None,
    as_json: bool,
) -> None:
    """List runs, newest first."""
    params = compact(
        status=status, environmentId=environment_id, taskId=task_id, passed=passed, limit=limit, offset=offset
    )
    data = context.api().call(RUNS, query=params)
    note = span(len(data["runs"]), data["total"], offset, "run")
    context.out.items(data["runs"], RUN_COLUMNS, as_json, total=data["total"], note=note)


@runs.command("get")
@click.argument("run_id", callback=resolver(run))
@json_option
@pass_context
def runs_get(context: Context, run_id: str, as_json: bool) -> None:
    """Show one run."""
    context.out.record(context.api().call(RUN, runId=run_id), RUN_FIELDS, as_json)


@click.command()
@click.argument("query")
@click.option(
    "--org",
    "organization_id",
    envvar="AIVIS_ORG_ID",
    help="The organization's id (env AIVIS_ORG_ID); default: the signed-in one.",
)
@click.option("-n", "--results", "n_results", type=int, help="How many documents at most (1-100, default 10).")
@product_option(required=False, help="Only this product's documents (its slug or id).")
@click.option("--status", type=click.Choice(["draft", "published"]), help="Default: published.")
@click.option("--type", "document_type")
@json_option
@pass_context
def search(
    context: Context,
    query: str,
    organization_id: str | None,
    n_results: int | None,
    product_id: str | None,
    status: str | None,
    document_type: str | None,
    as_json: bool,
) -> None:
    """Search the organization's content by meaning."""
    org = context.organization_id(organization_id)
    where = compact(productId=product_id, status=status, type=document_type)
    body = compact(query=query, nResults=n_results, where=where or None)
    data = context.api().call(SEARCH, orgId=org, body=body)
    if as_json:
        print_json(data)  # the search answer keeps its own shape
        return
    ids, distances, metadatas = data["ids"][0], data["distances"][0], data["metadatas"][0]
    rows = [
        {"id": id_, "distance": round(distance, 4), "title": meta.get("title"), "path": meta.get("filePath")}
        for id_, distance, meta in zip(ids, distances, metadatas, strict=True)
    ]
    context.out.table(rows, ("id", "distance", "title", "path"))
    context.out.note(plural(len(rows), "result"))


def register(root: click.Group) -> None:
    root.add_command(runs)
    root.add_command(search)
