"""The options and the closing line of a command that lists a page at a time."""

from __future__ import annotations

import click

from aivis.output import plural

limit_option = click.option("--limit", type=int, help="At most this many (1-200, default 50).")
cursor_option = click.option("--cursor", help="The page after the one that printed this cursor.")


def page_note(count: int, word: str, next_cursor: str | None) -> str:
    """`12 answers; the next page: --cursor …`, the cursor only when there is a next page."""
    return plural(count, word) + (f"; the next page: --cursor {next_cursor}" if next_cursor else "")
