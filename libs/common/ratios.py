"""Every ratio the API answers, in one shape: `{value, count, total}`, the value null when there
is nothing to divide by, so a reader always sees what a rate was computed from."""

from __future__ import annotations


def ratio(count: int, total: int) -> dict[str, float | int | None]:
    return {"value": count / total if total else None, "count": count, "total": total}
