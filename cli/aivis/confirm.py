"""Destructive commands ask first on a terminal, as `gh` does: `--yes` skips the question, and a
script (stdin or stdout not a terminal) is never asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from aivis.context import Context
from aivis.errors import CliError

F = TypeVar("F", bound=Callable[..., Any])


def yes_option(function: F) -> F:
    return click.option("--yes", "-y", "yes", is_flag=True, help="Do not ask for confirmation.")(function)


def confirm(context: Context, yes: bool, question: str) -> None:
    """Ask `question` on a terminal unless `--yes`; a no ends the command (exit 1) with nothing done."""
    if yes or not context.factory.prompts():
        return
    if not click.confirm(question, default=False, err=True):
        raise CliError("cancelled: nothing was changed")
