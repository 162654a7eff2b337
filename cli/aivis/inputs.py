"""Reading what commands are given: JSON arguments and files, bodies without unset fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aivis.errors import EXIT_VALIDATION, CliError


def compact(**fields: Any) -> dict[str, Any]:
    """A body of the fields that were given (None means not given; empty lists too)."""
    return {key: value for key, value in fields.items() if value is not None and value != ()}


def json_value(text: str, what: str) -> Any:
    """JSON given inline, or `@file` for a file's JSON."""
    try:
        raw = Path(text[1:]).read_text() if text.startswith("@") else text
        return json.loads(raw)
    except OSError as exc:
        raise CliError(f"{what}: cannot read {text[1:]}: {exc.strerror}", EXIT_VALIDATION) from None
    except ValueError as exc:
        raise CliError(f"{what}: not valid JSON: {exc}", EXIT_VALIDATION) from None


def json_object(text: str | None, what: str) -> dict[str, Any] | None:
    if text is None:
        return None
    value = json_value(text, what)
    if not isinstance(value, dict):
        raise CliError(f"{what}: a JSON object is required", EXIT_VALIDATION)
    return value


def text_or_file(text: str | None) -> str | None:
    """A text option, or `@file` for the file's text."""
    if text is None or not text.startswith("@"):
        return text
    try:
        return Path(text[1:]).read_text()
    except OSError as exc:
        raise CliError(f"cannot read {text[1:]}: {exc.strerror}", EXIT_VALIDATION) from None
