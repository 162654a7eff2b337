"""The options and the closing line of a command that lists a page at a time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from aivis.output import Column, Output, plural

limit_option = click.option("--limit", type=int, help="At most this many (1-200, default 50).")
cursor_option = click.option("--cursor", help="The page after the one that printed this cursor.")


def page_note(count: int, word: str, next_cursor: str | None, words: str | None = None) -> str:
    """`12 answers; the next page: --cursor …`, the cursor only when there is a next page (`words`
    for a plural not made with -s)."""
    return plural(count, word, words) + (f"; the next page: --cursor {next_cursor}" if next_cursor else "")


def print_page(
    out: Output,
    items: list[dict[str, Any]],
    columns: Sequence[str | Column],
    as_json: bool,
    next_cursor: str | None,
    word: str,
    words: str | None = None,
) -> None:
    """A page of a list read by cursor, with its closing line."""
    note = page_note(len(items), word, next_cursor, words)
    out.items(items, columns, as_json, next_cursor=next_cursor, note=note)
