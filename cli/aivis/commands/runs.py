"""`aivis runs` (agent-simulation runs) and `aivis search` (semantic search of content)."""

from __future__ import annotations

import click

from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option, show

RUN_COLUMNS = ("id", "status", "passed", "overallScore", "taskId", "createdAt")


@click.group()
def runs() -> None:
    """Agent-simulation runs of the organization."""


@runs.command("list")
@click.option("--status")
@click.option("--environment", "environment_id", help="Only this environment's runs.")
@click.option("--task", "task_id", help="Only this task's runs.")
@click.option("--passed/--failed", "passed", default=None)
@click.option("--limit", type=int)
@click.option("--offset", type=int)
@json_option
@pass_context
def runs_list(context: Context, status: str | None, environment_id: str | None, task_id: str | None,
              passed: bool | None, limit: int | None, offset: int | None, as_json: bool) -> None:  # fmt: skip
    """List runs, newest first."""
    params = compact(status=status, environmentId=environment_id, taskId=task_id, passed=passed, limit=limit,
                     offset=offset)  # fmt: skip
    data = context.api().call("GET", "/api/v1/agent-simulation/runs", params=params)
    show(data, as_json, rows=data["runs"], columns=RUN_COLUMNS, footer=f"{len(data['runs'])} of {data['total']} runs")


@click.command()
@click.argument("query")
@click.option(
    "--org",
    "organization_id",
    envvar="AIVIS_ORG_ID",
    help="The organization's id (env AIVIS_ORG_ID); default: the signed-in one.",
)
@click.option("-n", "--results", "n_results", type=int, help="How many documents at most (1-100, default 10).")
@click.option("--product", "product_id", help="Only this product's documents.")
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
    data = context.api().call("POST", f"/api/v1/content/search/{org}", body=body)
    ids, distances, metadatas = data["ids"][0], data["distances"][0], data["metadatas"][0]
    rows = [{"id": id_, "distance": round(distance, 4), "title": meta.get("title"), "path": meta.get("filePath")}
            for id_, distance, meta in zip(ids, distances, metadatas, strict=True)]  # fmt: skip
    show(data, as_json, rows=rows, columns=("id", "distance", "title", "path"), footer=f"{len(rows)} results")


def register(root: click.Group) -> None:
    root.add_command(runs)
    root.add_command(search)
