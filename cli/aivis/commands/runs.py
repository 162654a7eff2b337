"""`aivis runs` (agent-simulation runs) and `aivis search` (semantic search of content)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import Column, json_option, plural, print_json, short_id, when
from aivis.resolve import by_prefix, product_option, resolver

RUNS = Endpoint("GET", "/api/v1/agent-simulation/runs")
RUN = Endpoint("GET", "/api/v1/agent-simulation/runs/{runId}")
SEARCH = Endpoint("POST", "/api/v1/content/search/{orgId}")

# The statuses the simulation runner records.
RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"]
RUN_COLUMNS = (short_id(), "status", "passed", Column("overallScore"), "task.name", when("createdAt"))
RUN_FIELDS = ("id", "status", "passed", "overallScore", "task.name", "environment.name", "tokensUsed", "costUsd",
              "duration", "startedAt", "completedAt", "createdAt")  # fmt: skip
PAGE_SIZE = 200  # the most one list call answers


@click.group()
def runs() -> None:
    """Agent-simulation runs of the organization.

    A run is named by its id or the short id `aivis runs list` shows.
    """


@runs.command("list")
@click.option("--status", type=click.Choice(RUN_STATUSES))
@click.option("--environment", "environment_id", help="Only this environment's runs.")
@click.option("--task", "task_id", help="Only this task's runs.")
@click.option("--passed/--failed", "passed", default=None)
@click.option("--limit", type=click.IntRange(1, PAGE_SIZE), help="At most this many (default 50).")
@click.option("--offset", type=click.IntRange(0), help="Skip this many.")
@json_option
@pass_context
def runs_list(context: Context, status: str | None, environment_id: str | None, task_id: str | None,
              passed: bool | None, limit: int | None, offset: int | None, as_json: bool) -> None:  # fmt: skip
    """List runs, newest first."""
    query = compact(status=status, environmentId=environment_id, taskId=task_id, passed=passed, limit=limit,
                    offset=offset)  # fmt: skip
    data = context.api().call(RUNS, query=query)
    first = (offset or 0) + 1
    shown = len(data["runs"])
    note = f"{first}-{first + shown - 1} of {plural(data['total'], 'run')}" if shown else plural(0, "run")
    context.out.items(data["runs"], RUN_COLUMNS, as_json, total=data["total"], note=note)


def every_run(context: Context) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        page = context.api().call(RUNS, query={"limit": PAGE_SIZE, "offset": offset})
        yield from page["runs"]
        offset += len(page["runs"])
        if not page["runs"] or offset >= page["total"]:
            return


@runs.command("get")
@click.argument("run_id", callback=resolver(lambda context, prefix: by_prefix(every_run(context), prefix, "run")))
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
@click.option("-n", "--results", "n_results", type=click.IntRange(1, 100), help="How many at most (default 10).")
@product_option(required=False, help="Only this product's documents (its slug or id).")
@click.option("--status", type=click.Choice(["draft", "published"]), help="Default: published.")
@click.option("--type", "document_type")
@json_option
@pass_context
def search(context: Context, query: str, organization_id: str | None, n_results: int | None,
           product_id: str | None, status: str | None, document_type: str | None, as_json: bool) -> None:  # fmt: skip
    """Search the organization's content by meaning."""
    org = context.organization_id(organization_id)
    where = compact(productId=product_id, status=status, type=document_type)
    body = compact(query=query, nResults=n_results, where=where or None)
    data = context.api().call(SEARCH, orgId=org, body=body)
    if as_json:
        print_json(data)  # the search answer keeps its own (Chroma-like) shape
        return
    ids, distances, metadatas = data["ids"][0], data["distances"][0], data["metadatas"][0]
    rows = [{"id": id_, "distance": round(distance, 4), "title": meta.get("title"), "path": meta.get("filePath")}
            for id_, distance, meta in zip(ids, distances, metadatas, strict=True)]  # fmt: skip
    context.out.table(rows, ("id", "distance", "title", "path"))
    context.out.note(plural(len(rows), "result"))


def register(root: click.Group) -> None:
    root.add_command(runs)
    root.add_command(search)
