"""What commands print: a readable table by default, the answer's JSON with `--json`.

Tables go to a console as wide as their content when stdout is not a terminal, so piped output
never wraps an id in the middle.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

F = TypeVar("F", bound=Callable[..., Any])


def json_option(function: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON, for scripts.")(function)


def console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    return Console(file=stream, width=None if stream.isatty() else 10_000, highlight=False)


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def table(rows: Iterable[dict[str, Any]], columns: Sequence[str], title: str | None = None) -> None:
    grid = Table(*columns, title=title, title_justify="left")
    for row in rows:
        grid.add_row(*(cell(_path(row, column)) for column in columns))
    console().print(grid)


def record(data: dict[str, Any], fields: Sequence[str] | None = None) -> None:
    grid = Table("field", "value", show_header=False)
    for field in fields or list(data):
        grid.add_row(field, cell(_path(data, field)))
    console().print(grid)


def show(
    data: Any,
    as_json: bool,
    *,
    rows: list[dict[str, Any]] | None = None,
    columns: Sequence[str] = (),
    fields: Sequence[str] | None = None,
    footer: str | None = None,
) -> None:
    """The answer as JSON, or as a table of `rows` (with `footer` below), or as one record."""
    if as_json:
        print_json(data)
    elif rows is not None:
        table(rows, columns)
        if footer:
            click.echo(footer)
    else:
        record(data, fields)


def _path(row: dict[str, Any], dotted: str) -> Any:
    """`product.name` reads a nested field."""
    value: Any = row
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value
