"""Errors of the command line and the exit code of each class of error.

| exit | class | when |
|---|---|---|
| 0 | | success |
| 1 | other | anything unexpected |
| 2 | usage | a command or option misused (click's own code) |
| 3 | auth | not signed in, a refused credential (401), a missing scope (403), a denied or expired sign-in |
| 4 | not found | 404, 410 |
| 5 | validation | 400, 405, 413, 422, and input files the command cannot read |
| 6 | conflict | 409, and route imports that left conflicting rows out |
| 7 | server | 429, 5xx, and a server that cannot be reached |
| 8 | not verified | `aivis domains verify` found no valid DNS record (yet) |
"""

from __future__ import annotations

import re
from typing import Any

import click

EXIT_AUTH = 3
EXIT_NOT_FOUND = 4
EXIT_VALIDATION = 5
EXIT_CONFLICT = 6
EXIT_SERVER = 7
EXIT_NOT_VERIFIED = 8

# A field of an item of a list the API was sent, as the API names it: `pages.0.slug`.
_ITEM_FIELD = re.compile(r"(\w+?)s?\.(\d+)\.(.+)")
_EXIT_BY_STATUS = {401: EXIT_AUTH, 403: EXIT_AUTH, 404: EXIT_NOT_FOUND, 410: EXIT_NOT_FOUND, 409: EXIT_CONFLICT}


def exit_code_for_status(status: int) -> int:
    if status in _EXIT_BY_STATUS:
        return _EXIT_BY_STATUS[status]
    if status == 429 or status >= 500:
        return EXIT_SERVER
    return EXIT_VALIDATION


class CliError(click.ClickException):
    """An error shown as `error: <message>` on stderr, ending the command with `exit_code`."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        # click declares `exit_code` on the class; each error here carries its own.
        self.exit_code = exit_code  # type: ignore[misc]

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class ApiError(CliError):
    """An error envelope from the API: its code and message, and each field's problem."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        lines = [f"{code}: {message}"]
        if isinstance(details, dict):
            lines += [f"  {counted_from_one(field)}: {problem}" for field, problem in details.items()]
        elif details is not None:
            lines.append(f"  {details}")
        super().__init__("\n".join(lines), exit_code_for_status(status))
        self.status = status
        self.code = code
        self.details = details


def counted_from_one(field: str) -> str:
    """`pages.0.slug` as a person counts: `page 1: slug`."""
    item = _ITEM_FIELD.fullmatch(field)
    return field if item is None else f"{item.group(1)} {int(item.group(2)) + 1}: {item.group(3)}"


def not_signed_in(profile: str) -> CliError:
    return CliError(f"not signed in (profile {profile!r}): run `aivis login`, or set AIVIS_API_KEY", EXIT_AUTH)
