"""A run's steps, as the API shows them: the current attempt's, in order, by keyset page."""

from __future__ import annotations

from typing import Any

from libs.common.cursors import page_of
from libs.common.db import fetch_all
from services.simulations.shapes import STEP

STEP_COLUMNS = STEP.columns_of("s")


async def list_steps(cur: Any, run_id: str, query: dict[str, Any]) -> dict[str, Any]:
    after = query.get("cursor")
    rows = await fetch_all(
        cur,
        f"SELECT {STEP_COLUMNS} FROM run_steps s JOIN runs r ON r.id = s.run_id AND s.attempt = r.attempts"
        " WHERE s.run_id = %s AND s.seq > %s ORDER BY s.seq LIMIT %s",
        (run_id, after[0] if after else 0, query["limit"] + 1),
    )
    page, next_cursor = page_of(rows, query["limit"], lambda row: (str(row["seq"]), run_id))
    return {"items": [STEP.of(row) for row in page], "nextCursor": next_cursor}
