"""Route import files: CSV with a header row, or JSON (a list, or `{"routes": [...]}`).

Each row has `path` and `targetId` (`target_id` is read too) and optionally `targetType`
(default `product_document`). Rows are numbered from 1 in the order of the file, the header
not counted; a CSV header without a required column is refused by naming the column.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from aivis.errors import EXIT_VALIDATION, CliError

ALIASES = {"target_id": "targetId", "target_type": "targetType"}
REQUIRED = ("path", "targetId")


def read_routes(path: Path) -> list[dict[str, str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}", EXIT_VALIDATION) from None
    except UnicodeDecodeError:
        raise CliError(f"{path} is not UTF-8 text", EXIT_VALIDATION) from None
    raw = _json_rows(path, text) if path.suffix.lower() == ".json" else _csv_rows(path, text)
    if not raw:
        raise CliError(f"{path} holds no routes", EXIT_VALIDATION)
    return [_route(number, row) for number, row in enumerate(raw, start=1)]


def _csv_rows(path: Path, text: str) -> list[Any]:
    reader = csv.DictReader(text.splitlines())
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in REQUIRED if name not in {ALIASES.get(column, column) for column in header}]
    if missing:
        has = ", ".join(name for name in header if name) or "nothing"
        raise CliError(
            f"{path}: the header row lacks {' and '.join(missing)} (it has {has}); the first line names the columns,"
            f" e.g. path,targetId",
            EXIT_VALIDATION,
        )
    reader.fieldnames = header
    return list(reader)


def _json_rows(path: Path, text: str) -> list[Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CliError(f"{path} is not valid JSON: {exc}", EXIT_VALIDATION) from None
    if isinstance(value, dict) and isinstance(value.get("routes"), list):
        value = value["routes"]
    if not isinstance(value, list):
        raise CliError(f'{path}: expected a list of routes or {{"routes": [...]}}', EXIT_VALIDATION)
    return value


def _route(number: int, row: Any) -> dict[str, str]:
    if not isinstance(row, dict):
        raise CliError(f"row {number}: expected an object with path and targetId", EXIT_VALIDATION)
    item = {ALIASES.get(key, key): value for key, value in row.items() if key is not None}
    route = {"path": item.get("path"), "targetId": item.get("targetId"), "targetType": item.get("targetType")}
    for field in REQUIRED:
        if not isinstance(route[field], str) or not route[field]:
            raise CliError(f"row {number}: {field} is required", EXIT_VALIDATION)
    if not route["targetType"]:
        route["targetType"] = "product_document"
    return route  # type: ignore[return-value]
