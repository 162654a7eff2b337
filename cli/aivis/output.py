"""What commands print, as `gh` prints it.

On a terminal: tables as wide as the terminal (ids shortened where commands take the short
form, other ids whole, times relative, long text cut with an ellipsis), records as two
columns. Piped: tab-separated lines without a header, full ids and timestamps, and any note on
stderr, so `cut -f1` gets ids. With `--json`: the answer's JSON; every list in one shape,
`{items, nextCursor?, total?}`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import click
from rich.table import Table
from rich.text import Text

from aivis.factory import Factory

F = TypeVar("F", bound=Callable[..., Any])
SHORT_ID_LENGTH = 8


def json_option(function: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON, for scripts.")(function)


@dataclass(frozen=True)
class Column:
    """A column: a dotted field of each item (`product.name`), and how a terminal shows it."""

    key: str
    # "id": shortened (commands take the short form); "key": an id shown whole, never cut;
    # "time": relative; "text": cut with an ellipsis when the terminal is too narrow.
    kind: str = "text"
    # A text column that keeps up to this many characters while the others give way.
    keep: int | None = None

    @property
    def header(self) -> str:
        return self.key.rsplit(".", 1)[-1]

    @classmethod
    def of(cls, key: str) -> Column:
        """A column named by its field alone: an id (`id`, `targetId`) is shown whole."""
        name = key.rsplit(".", 1)[-1]
        return cls(key, "key" if name == "id" or name.endswith("Id") else "text")


def short_id(key: str = "id") -> Column:
    return Column(key, "id")


def when(key: str) -> Column:
    return Column(key, "time")


def kept(key: str, width: int) -> Column:
    """The most useful column of a table (a route's path): up to `width` characters shown whole."""
    return Column(key, "text", width)


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 page`, `2 pages`; `words` for a plural not made with -s."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def span(shown: int, total: int, offset: int | None, noun: str | None = None) -> str:
    """Which of a list a page shows, counted from 1: `1-50 of 120` (`of 120 runs` with a noun)."""
    first = (offset or 0) + 1
    of = plural(total, noun) if noun else str(total)
    return f"{first}-{first + shown - 1} of {of}" if shown else f"none of {of}"


def relative_time(value: str, now: datetime | None = None) -> str:
    """An ISO 8601 timestamp as `3 minutes ago` (or `in 2 hours`)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = int(((now or datetime.now(UTC)) - moment).total_seconds())
    ahead, seconds = seconds < 0, abs(seconds)
    if seconds < 60:
        return "just now"
    for unit, size in (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600)):
        if seconds >= size:
            amount = plural(seconds // size, unit)
            break
    else:
        amount = plural(seconds // 60, "minute")
    return f"in {amount}" if ahead else f"{amount} ago"


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def field(row: dict[str, Any], dotted: str) -> Any:
    """`product.name` reads a nested field."""
    value: Any = row
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def list_json(items: list[Any], total: int | None = None, next_cursor: str | None = None) -> dict[str, Any]:
    """The one JSON shape of every list."""
    shaped: dict[str, Any] = {"items": items}
    if next_cursor:
        shaped["nextCursor"] = next_cursor
    if total is not None:
        shaped["total"] = total
    return shaped


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


@dataclass(frozen=True)
class Output:
    factory: Factory

    def _cell(self, row: dict[str, Any], column: Column, interactive: bool) -> str:
        value = field(row, column.key)
        if interactive and isinstance(value, str):
            if column.kind == "id":
                return value[:SHORT_ID_LENGTH]
            if column.kind == "time":
                return relative_time(value)
            if column.keep and len(value) > column.keep:
                return value[: column.keep - 1] + "…"
        return cell(value)

    def items(
        self,
        items: list[dict[str, Any]],
        columns: Sequence[str | Column],
        as_json: bool,
        *,
        total: int | None = None,
        next_cursor: str | None = None,
        note: str | None = None,
    ) -> None:
        """A list: `{items, nextCursor?, total?}` as JSON, a table, or tab-separated lines; `note` below."""
        if as_json:
            print_json(list_json(items, total, next_cursor))
            return
        self.table(items, columns)
        if note:
            self.note(note)

    def table(self, rows: Iterable[dict[str, Any]], columns: Sequence[str | Column], title: str | None = None) -> None:
        specs = [column if isinstance(column, Column) else Column.of(column) for column in columns]
        terminal = self.factory.stdout()
        if not terminal.interactive:
            for row in rows:
                click.echo("\t".join(self._cell(row, spec, False).replace("\t", " ") for spec in specs))
            return
        # Cells never wrap: the widest columns give way first (rich collapses wrappable columns,
        # widest first) and their text ends in an ellipsis; a whole id is not collapsible.
        grid = Table(title=title, title_justify="left", box=None, pad_edge=False, header_style="bold")
        cells = [[self._cell(row, spec, True) for spec in specs] for row in rows]
        for index, spec in enumerate(specs):
            longest = max((len(line[index]) for line in cells), default=0)
            keep = min(spec.keep, max(longest, len(spec.header))) if spec.keep else None
            grid.add_column(spec.header, no_wrap=spec.kind == "key", min_width=keep)
        for line in cells:
            grid.add_row(*(Text(text, no_wrap=True, overflow="ellipsis") for text in line))
        self.factory.console().print(grid)

    def record(self, data: dict[str, Any], fields: Sequence[str] | None, as_json: bool) -> None:
        """One resource: JSON, or its fields one per line (`field<TAB>value` when piped)."""
        if as_json:
            print_json(data)
            return
        names = list(fields or data)
        if not self.factory.stdout().interactive:
            for name in names:
                click.echo(f"{name}\t{cell(field(data, name))}")
            return
        grid = Table("field", "value", show_header=False, box=None, pad_edge=False)
        for name in names:
            grid.add_row(name, cell(field(data, name)))
        self.factory.console().print(grid)

    def note(self, text: str) -> None:
        """A line for the person: below a table on a terminal, on stderr when piped."""
        click.echo(text, err=not self.factory.stdout().interactive)
