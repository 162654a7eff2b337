"""What the operator command lines of the parts share: argument types, one-line errors, tables.

Every mistake in what the operator typed is reported the same way, by argparse: one line on
stderr, `<command>: error: <what is wrong>`, and exit code 2, never a traceback. Checks that
need the database (an unknown organization, a taken slug) end through the same `error`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, NoReturn, TypeVar

from libs.common.encoding import dumps
from libs.contract.validators import SLUG_MAX, SLUG_PATTERN, is_uuid

T = TypeVar("T")

USAGE_ERROR = 2
EMPTY_CELL = "-"


class OperatorParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (argparse prints the usage first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def argument_type(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse type from a function raising ValueError, whose message becomes the error."""

    def checked(text: str) -> T:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    checked.__name__ = parse.__name__
    return checked


def parse_uuid(text: str) -> str:
    """An argparse type: a UUID in its canonical form (the one id check, `is_uuid`), returned lower-case."""
    if not is_uuid(text):
        raise argparse.ArgumentTypeError(f"not a UUID: {text!r}")
    return text.lower()


def parse_slug(text: str) -> str:
    if len(text) > SLUG_MAX or re.fullmatch(SLUG_PATTERN, text) is None:
        raise argparse.ArgumentTypeError(
            f"not a slug: {text!r} (lowercase letters, digits and single hyphens, at most {SLUG_MAX} characters)"
        )
    return text


def parse_id_or_slug(text: str) -> str:
    """An argparse type: a UUID (returned canonical) or a slug."""
    try:
        return parse_uuid(text)
    except argparse.ArgumentTypeError:
        pass
    if len(text) > SLUG_MAX or re.fullmatch(SLUG_PATTERN, text) is None:
        raise argparse.ArgumentTypeError(f"not an id or a slug: {text!r}")
    return text


def bounded_int(minimum: int, maximum: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `minimum` to `maximum`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be from {minimum} to {maximum}, got {value}")
        return value

    return parse


def bounded_text(minimum: int, maximum: int) -> Callable[[str], str]:
    """An argparse type: text of `minimum` to `maximum` characters."""

    def parse(text: str) -> str:
        if not minimum <= len(text) <= maximum:
            raise argparse.ArgumentTypeError(f"must be {minimum} to {maximum} characters long, got {len(text)}")
        return text

    return parse


def cell(value: Any) -> str:
    """A value as a table shows it: nothing is `-`, a list is comma-separated, times to the second."""
    if value is None:
        return EMPTY_CELL
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(cell(item) for item in value) or EMPTY_CELL
    if isinstance(value, dict):
        return dumps(value).decode()
    return str(value)


def table(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cells in left-aligned columns, two spaces apart."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = ("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(line.rstrip() for line in lines)


def render(result: Mapping[str, Any]) -> str:
    """A command's result for a person: a listing (one key holding a list of records) as a table with
    a header, anything else as a table of field and value."""
    if len(result) == 1:
        [(name, records)] = result.items()
        if isinstance(records, list):
            if not records:
                return f"no {name}"
            columns = list(records[0])
            return table([columns, *([cell(record.get(column)) for column in columns] for record in records)])
    return table([[name, cell(value)] for name, value in result.items()])
