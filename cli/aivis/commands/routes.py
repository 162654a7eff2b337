"""`aivis routes`: an app's URL routes, their candidates, and importing them from a file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.progress import Progress

from aivis.api import Api
from aivis.context import Context, pass_context
from aivis.errors import EXIT_CONFLICT, ApiError, CliError
from aivis.inputs import compact
from aivis.output import console, json_option, print_json, show, table
from aivis.route_files import read_routes

BATCH_SIZE = 100  # the most one preview or batch call takes


@click.group()
def routes() -> None:
    """URL routes of an app, pointing paths at content documents."""


@routes.command("candidates")
@click.argument("app_id")
@click.option("--product", "product_id", help="Only this product of the app; default: every product of the app.")
@click.option("--status", type=click.Choice(["draft", "published"]), help="Default: published.")
@click.option("--include-routed", is_flag=True, default=None, help="Also list documents the app already routes.")
@click.option("--limit", type=int, help="One page of at most this many (1-1000); default: the whole list.")
@click.option("--cursor", help="The page after the one that printed this cursor.")
@json_option
@pass_context
def routes_candidates(context: Context, app_id: str, product_id: str | None, status: str | None,
                      include_routed: bool | None, limit: int | None, cursor: str | None,
                      as_json: bool) -> None:  # fmt: skip
    """List the app's products' documents with the path each would get, all or a page at a time."""
    params = compact(productId=product_id, status=status, includeRouted=include_routed, limit=limit, cursor=cursor)
    data = context.api().call("GET", f"/api/v1/apps/{app_id}/route-candidates", params=params)
    footer = f"{data['candidateCount']} candidates"
    if data.get("nextCursor"):
        footer += f"; the next page: --cursor {data['nextCursor']}"
    show(data, as_json, rows=data["candidates"], columns=("targetId", "suggestedPath", "pathStatus", "target.title"),
         footer=footer)  # fmt: skip


@routes.command("update")
@click.argument("app_id")
@click.argument("route_id")
@click.option("--path")
@click.option("--target", "target_id", help="The id of the content document to route to.")
@json_option
@pass_context
def routes_update(context: Context, app_id: str, route_id: str, path: str | None, target_id: str | None,
                  as_json: bool) -> None:  # fmt: skip
    """Change a route's path or target."""
    body = compact(path=path, targetId=target_id, targetType="product_document" if target_id else None)
    if not body:
        raise click.UsageError("give --path or --target")
    data = context.api().call("PATCH", f"/api/v1/apps/{app_id}/routes/{route_id}", body=body)
    show(data, as_json, fields=("id", "path", "targetType", "targetId", "target.title", "updatedAt"))


@dataclass
class Outcome:
    created: int = 0
    skipped: int = 0
    conflicts: list[dict[str, Any]] = field(default_factory=list)

    def conflict(self, number: int, entry: dict[str, Any]) -> None:
        self.conflicts.append({"row": number, **entry["input"], "issues": entry["issues"]})


def batches(rows: list[dict[str, str]]) -> list[list[tuple[int, dict[str, str]]]]:
    numbered = list(enumerate(rows, start=1))
    return [numbered[start : start + BATCH_SIZE] for start in range(0, len(numbered), BATCH_SIZE)]


def preview(api: Api, app_id: str, batch: list[tuple[int, dict[str, str]]]) -> list[dict[str, Any]]:
    body = {"routes": [route for _, route in batch]}
    data = api.call("POST", f"/api/v1/apps/{app_id}/routes/import-preview", body=body)
    entries: list[dict[str, Any]] = data["routes"]
    return entries


def write(api: Api, app_id: str, batch: list[tuple[int, dict[str, str]]], outcome: Outcome) -> None:
    """Create a batch's routes. Rows that came to conflict since the preview (another writer, or
    a path an earlier batch took) are set aside and the rest sent again."""
    while batch:
        try:
            data = api.call("POST", f"/api/v1/apps/{app_id}/routes/batch", body={"routes": [r for _, r in batch]})
        except ApiError as error:
            if error.status != 409 or not isinstance(error.details, dict):
                raise
            entries = error.details["routes"]
            for (number, _), entry in zip(batch, entries, strict=True):
                if entry["action"] == "conflict":
                    outcome.conflict(number, entry)
            batch = [row for row, entry in zip(batch, entries, strict=True) if entry["action"] != "conflict"]
            continue
        outcome.created += data["createdCount"]
        outcome.skipped += len(batch) - data["createdCount"]
        return


@routes.command("import")
@click.argument("app_id")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Only check the file against the app; create nothing.")
@click.option("--skip-conflicts", is_flag=True, help="Create the other rows when some conflict.")
@json_option
@pass_context
def routes_import(context: Context, app_id: str, file: Path, dry_run: bool, skip_conflicts: bool,
                  as_json: bool) -> None:  # fmt: skip
    """Import routes from FILE (CSV with a header, or JSON): `path`, `targetId`, optional `targetType`.

    Every row is checked first (import preview, 100 at a time). With conflicts nothing is created
    unless --skip-conflicts; then rows are created 100 at a time. Exit 6 when rows conflicted.
    """
    api = context.api()
    chunks = batches(read_routes(file))
    planned = Outcome()
    writable: list[list[tuple[int, dict[str, str]]]] = []
    with Progress(console=console(stderr=True), transient=as_json) as progress:
        checking = progress.add_task("Checking", total=sum(len(chunk) for chunk in chunks))
        for chunk in chunks:
            entries = preview(api, app_id, chunk)
            for (number, _), entry in zip(chunk, entries, strict=True):
                if entry["action"] == "conflict":
                    planned.conflict(number, entry)
                planned.created += entry["action"] == "create"
                planned.skipped += entry["action"] == "skip"
            writable.append([row for row, entry in zip(chunk, entries, strict=True) if entry["action"] != "conflict"])
            progress.advance(checking, len(chunk))
        if dry_run:
            report(planned, as_json, "would create")
            return
        if planned.conflicts and not skip_conflicts:
            report(Outcome(conflicts=planned.conflicts), as_json, "created",
                   "nothing was created: fix those rows, or use --skip-conflicts")  # fmt: skip
            return
        outcome = Outcome(conflicts=planned.conflicts)
        importing = progress.add_task("Importing", total=sum(len(rows) for rows in writable))
        for rows in writable:
            write(api, app_id, rows, outcome)
            progress.advance(importing, len(rows))
    report(outcome, as_json, "created")


def report(outcome: Outcome, as_json: bool, verb: str, note: str = "") -> None:
    """The summary (and the conflicting rows); exit 6 when any row conflicted."""
    if as_json:
        print_json({"created": outcome.created, "skipped": outcome.skipped, "conflicts": outcome.conflicts})
    else:
        if outcome.conflicts:
            table(outcome.conflicts, ("row", "path", "targetId", "issues"), title="Conflicts")
        click.echo(f"{verb} {outcome.created}, skipped {outcome.skipped}, conflicts {len(outcome.conflicts)}")
    if outcome.conflicts:
        raise CliError(f"{len(outcome.conflicts)} rows conflict" + (f"; {note}" if note else ""), EXIT_CONFLICT)


def register(root: click.Group) -> None:
    root.add_command(routes)
