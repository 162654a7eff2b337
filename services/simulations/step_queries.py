"""A run's steps, as the API shows them: the current attempt's, in order, by keyset page."""

from __future__ import annotations

from typing import Any

from libs.common.cursors import page_of
from libs.common.db import fetch_all

STEP_COLUMNS = ", ".join(
    f"s.{column}" for column in "seq kind name url status bytes tokens ok detail elapsed_ms created_at".split()
)


async def list_steps(cur: Any, run_id: str, query: dict[str, Any]) -> dict[str, Any]:
    after = query.get("cursor")
    rows = await fetch_all(
        cur,
        f"SELECT {STEP_COLUMNS} FROM run_steps s JOIN runs r ON r.id = s.run_id AND s.attempt = r.attempts"
        " WHERE s.run_id = %s AND s.seq > %s ORDER BY s.seq LIMIT %s",
        (run_id, after[0] if after else 0, query["limit"] + 1),
    )
    page, next_cursor = page_of(rows, query["limit"], lambda row: (str(row["seq"]), run_id))
    items = [
        {
            "seq": row["seq"],
            "kind": row["kind"],
            "name": row["name"],
            "url": row["url"],
            "status": row["status"],
            "bytes": row["bytes"],
            "tokens": row["tokens"],
            "ok": row["ok"],
            "detail": row["detail"],
            "elapsedMs": row["elapsed_ms"],
            "createdAt": row["created_at"],
        }
        for row in page
    ]
    return {"items": items, "nextCursor": next_cursor}
