"""`aivis routes`: an app's URL routes, their candidates, and importing them from a file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.progress import Progress

from aivis.api import Api, Endpoint
from aivis.confirm import confirm, yes_option
from aivis.context import Context, pass_context
from aivis.errors import EXIT_CONFLICT, EXIT_VALIDATION, ApiError, CliError
from aivis.inputs import compact
from aivis.output import Output, json_option, kept, plural, print_json, short_id
from aivis.paging import cursor_option, page_note
from aivis.resolve import ROUTES_LIST, app_argument, product_option, route_argument
from aivis.route_files import read_routes

ROUTE_CANDIDATES = Endpoint("GET", "/api/v1/apps/{appId}/route-candidates")
ROUTES_PREVIEW = Endpoint("POST", "/api/v1/apps/{appId}/routes/import-preview")
ROUTES_BATCH = Endpoint("POST", "/api/v1/apps/{appId}/routes/batch")
ROUTE_UPDATE = Endpoint("PATCH", "/api/v1/apps/{appId}/routes/{routeId}")
ROUTE_DELETE = Endpoint("DELETE", "/api/v1/apps/{appId}/routes/{routeId}")

PATH_WIDTH = 70  # a route's path, the column a person reads, is cut only past this
BATCH_SIZE = 100  # the most one preview or batch call takes
Batch = list[tuple[int, dict[str, str]]]  # rows of the file, each with its number (from 1)


@click.group()
def routes() -> None:
    """URL routes of an app, pointing paths at content documents."""


@routes.command("candidates")
@app_argument
@product_option(required=False, help="Only this product of the app (its slug or id); default: every product.")
@click.option("--status", type=click.Choice(["draft", "published"]), help="Default: published.")
@click.option("--include-routed", is_flag=True, default=None, help="Also list documents the app already routes.")
@click.option("--limit", type=int, help="One page of at most this many (1-1000); default: the whole list.")
@cursor_option
@json_option
@pass_context
def routes_candidates(
    context: Context,
    app_id: str,
    product_id: str | None,
    status: str | None,
    include_routed: bool | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List the app's products' documents with the path each would get, all or a page at a time."""
    query = compact(productId=product_id, status=status, includeRouted=include_routed, limit=limit, cursor=cursor)
    data = context.api().call(ROUTE_CANDIDATES, appId=app_id, query=query)
    note = page_note(data["candidateCount"], "candidate", data.get("nextCursor"))
    columns = ("targetId", "suggestedPath", "pathStatus", "target.title")
    context.out.items(
        data["candidates"],
        columns,
        as_json,
        total=data["candidateCount"],
        next_cursor=data.get("nextCursor"),
        note=note,
    )


@routes.command("list")
@app_argument
@click.option("--path-prefix", help="Only routes whose path starts with this one.")
@click.option("--target", "target_id", help="Only routes to this content document (its id).")
@click.option("--limit", type=int, help="At most this many (1-500); default 100.")
@cursor_option
@json_option
@pass_context
def routes_list(
    context: Context,
    app_id: str,
    path_prefix: str | None,
    target_id: str | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List a page of the app's routes, oldest first."""
    query = compact(pathPrefix=path_prefix, targetId=target_id, limit=limit, cursor=cursor)
    data = context.api().call(ROUTES_LIST, appId=app_id, query=query)
    note = f"the next page: --cursor {data['nextCursor']}" if data["nextCursor"] else None
    columns = (short_id(), kept("path", PATH_WIDTH), "targetId", "target.title")
    context.out.items(data["routes"], columns, as_json, next_cursor=data["nextCursor"], note=note)


@routes.command("delete")
@app_argument
@route_argument
@yes_option
@json_option
@pass_context
def routes_delete(context: Context, app_id: str, route_id: str, yes: bool, as_json: bool) -> None:
    """Delete a route (its id or short id); its path is free at once."""
    confirm(context, yes, f"Delete the route {route_id}?")
    data = context.api().call(ROUTE_DELETE, appId=app_id, routeId=route_id)
    context.out.record(data, ("id", "path", "targetType", "targetId", "deletedAt"), as_json)


@routes.command("update")
@app_argument
@route_argument
@click.option("--path")
@click.option("--target", "target_id", help="The id of the content document to route to.")
@json_option
@pass_context
def routes_update(
    context: Context, app_id: str, route_id: str, path: str | None, target_id: str | None, as_json: bool
) -> None:
    """Change a route's path or target."""
    body = compact(path=path, targetId=target_id, targetType="product_document" if target_id else None)
    if not body:
        raise click.UsageError("give --path or --target")
    data = context.api().call(ROUTE_UPDATE, appId=app_id, routeId=route_id, body=body)
    context.out.record(data, ("id", "path", "targetType", "targetId", "target.title", "updatedAt"), as_json)


@dataclass
class Outcome:
    created: int = 0
    skipped: int = 0
    conflicts: list[dict[str, Any]] = field(default_factory=list)

    def conflict(self, number: int, entry: dict[str, Any]) -> None:
        self.conflicts.append({"row": number, **entry["input"], "issues": entry["issues"]})


def batches(rows: list[dict[str, str]]) -> list[Batch]:
    numbered = list(enumerate(rows, start=1))
    return [numbered[start : start + BATCH_SIZE] for start in range(0, len(numbered), BATCH_SIZE)]


def preview(api: Api, app_id: str, batch: Batch) -> list[dict[str, Any]]:
    """What the app would do with each row; rows the API refuses are named by their row in the file."""
    try:
        data = api.call(ROUTES_PREVIEW, appId=app_id, body={"routes": [route for _, route in batch]})
    except ApiError as error:
        if error.status != 422 or not isinstance(error.details, dict):
            raise
        raise CliError("\n".join(file_rows(batch, error.details)), EXIT_VALIDATION) from None
    entries: list[dict[str, Any]] = data["routes"]
    return entries


def file_rows(batch: Batch, details: dict[str, Any]) -> list[str]:
    """`routes.3.path: ...` of a batch's answer as `row 104: path: ...` of the file."""
    lines = []
    for key, problem in details.items():
        parts = key.split(".", 2)
        if len(parts) == 3 and parts[0] == "routes" and parts[1].isdigit() and int(parts[1]) < len(batch):
            lines.append(f"row {batch[int(parts[1])][0]}: {parts[2]}: {problem}")
        else:
            lines.append(f"{key}: {problem}")
    return lines


def write(api: Api, app_id: str, batch: Batch, outcome: Outcome) -> None:
    """Create a batch's routes. Rows that came to conflict since the preview (another writer, or
    a path an earlier batch took) are set aside and the rest sent again."""
    while batch:
        try:
            data = api.call(ROUTES_BATCH, appId=app_id, body={"routes": [r for _, r in batch]})
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
@app_argument
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Only check the file against the app; create nothing.")
@click.option("--skip-conflicts", is_flag=True, help="Create the other rows when some conflict.")
@json_option
@pass_context
def routes_import(
    context: Context, app_id: str, file: Path, dry_run: bool, skip_conflicts: bool, as_json: bool
) -> None:
    """Import routes from FILE (CSV with a header, or JSON): `path`, `targetId`, optional `targetType`.

    Every row is checked first (import preview, 100 at a time). With conflicts nothing is created
    unless --skip-conflicts; then rows are created 100 at a time. Exit 6 when rows conflicted.
    """
    api = context.api()
    chunks = batches(read_routes(file))
    planned = Outcome()
    writable: list[Batch] = []
    with Progress(console=context.factory.console(stderr=True), transient=as_json) as progress:
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
            report(context.out, planned, as_json, "would create")
            return
        if planned.conflicts and not skip_conflicts:
            report(
                context.out,
                Outcome(conflicts=planned.conflicts),
                as_json,
                "created",
                "nothing was created: fix those rows, or use --skip-conflicts",
            )
            return
        outcome = Outcome(conflicts=planned.conflicts)
        importing = progress.add_task("Importing", total=sum(len(rows) for rows in writable))
        for rows in writable:
            write(api, app_id, rows, outcome)
            progress.advance(importing, len(rows))
    report(context.out, outcome, as_json, "created")


def report(out: Output, outcome: Outcome, as_json: bool, verb: str, note: str = "") -> None:
    """The summary (and the conflicting rows, by their row in the file); exit 6 when any conflicted."""
    if as_json:
        print_json({"created": outcome.created, "skipped": outcome.skipped, "conflicts": outcome.conflicts})
    else:
        if outcome.conflicts:
            out.table(outcome.conflicts, ("row", "path", "targetId", "issues"), title="Conflicts")
        click.echo(f"{verb} {outcome.created}, skipped {outcome.skipped}, conflicts {len(outcome.conflicts)}")
    if outcome.conflicts:
        count = len(outcome.conflicts)
        message = f"{plural(count, 'row')} {'conflicts' if count == 1 else 'conflict'}"
        raise CliError(message + (f"; {note}" if note else ""), EXIT_CONFLICT)


def register(root: click.Group) -> None:
    root.add_command(routes)
