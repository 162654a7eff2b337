"""Simulation analytics: per task and environment over a time range, the pass rate, pass^k (τ-bench:
the chance that k trials drawn from the n run all pass, C(c, k) / C(n, k) with c passing), the mean
score and the median steps and bytes; every ratio with its numerator and denominator.

Only completed runs count: a failed or cancelled run gave no answer to judge, so it leaves every
denominator. Overall, pass^k is the mean of the groups' (as τ-bench averages over tasks).
"""

from __future__ import annotations

from datetime import datetime
from math import comb
from typing import Any

from libs.common.db import fetch_all

# pass^k is given for k = 1 … min(n, K_MAX): the most trials one request queues.
K_MAX = 20


def ratio(count: int, total: int) -> dict[str, Any]:
    return {"value": count / total if total else None, "count": count, "total": total}


def pass_hat_k(passed: int, runs: int) -> list[dict[str, Any]]:
    return [{"k": k, **ratio(comb(passed, k), comb(runs, k))} for k in range(1, min(runs, K_MAX) + 1)]


async def analytics(
    cur: Any, organization_id: str, start: datetime, end: datetime, filters: dict[str, Any]
) -> dict[str, Any]:
    where = [
        "r.organization_id = %(org)s",
        "r.deleted_at IS NULL",
        "r.status = 'completed'",
        "r.created_at >= %(start)s",
        "r.created_at < %(end)s",
    ]
    where += [f"r.{column} = %({column})s" for column in ("task_id", "environment_id") if column in filters]
    rows = await fetch_all(
        cur,
        "SELECT r.task_id::text, t.name AS task_name, t.category, r.environment_id::text, e.name AS environment_name,"
        " count(*) AS runs, count(*) FILTER (WHERE r.passed) AS passed, sum(r.overall_score) AS score_sum,"
        " percentile_cont(0.5) WITHIN GROUP (ORDER BY jsonb_array_length(r.metadata -> 'visited')) AS median_steps,"
        " percentile_cont(0.5) WITHIN GROUP (ORDER BY (r.metadata ->> 'bytesRead')::bigint) AS median_bytes"
        f" FROM runs r JOIN tasks t ON t.id = r.task_id JOIN environments e ON e.id = r.environment_id"
        f" WHERE {' AND '.join(where)}"
        " GROUP BY r.task_id, t.name, t.category, r.environment_id, e.name ORDER BY t.name, e.name, r.environment_id",
        {"org": organization_id, "start": start, "end": end, **filters},
    )
    days = await fetch_all(
        cur,
        "SELECT to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS runs,"
        " count(*) FILTER (WHERE r.passed) AS passed"
        f" FROM runs r WHERE {' AND '.join(where)} GROUP BY 1 ORDER BY 1",
        {"org": organization_id, "start": start, "end": end, **filters},
    )
    groups = [
        {
            "task": {"id": row["task_id"], "name": row["task_name"], "category": row["category"]},
            "environment": {"id": row["environment_id"], "name": row["environment_name"]},
            "runs": row["runs"],
            "passRate": ratio(row["passed"], row["runs"]),
            "passHatK": pass_hat_k(row["passed"], row["runs"]),
            "meanScore": {"value": row["score_sum"] / row["runs"], "sum": row["score_sum"], "count": row["runs"]},
            "medianSteps": row["median_steps"],
            "medianBytes": row["median_bytes"],
        }
        for row in rows
    ]
    runs = sum(row["runs"] for row in rows)
    score_sum = sum(row["score_sum"] for row in rows)
    overall_k = []
    for k in range(1, K_MAX + 1):
        estimates = [group["passHatK"][k - 1]["value"] for group in groups if len(group["passHatK"]) >= k]
        if estimates:
            overall_k.append(
                {"k": k, "value": sum(estimates) / len(estimates), "sum": sum(estimates), "count": len(estimates)}
            )
    return {
        "from": start,
        "to": end,
        "timeZone": "UTC",
        "groups": groups,
        "overall": {
            "runs": runs,
            "passRate": ratio(sum(row["passed"] for row in rows), runs),
            "passHatK": overall_k,
            "meanScore": {"value": score_sum / runs if runs else None, "sum": score_sum, "count": runs},
        },
        "days": [
            {"day": day["day"], "runs": day["runs"], "passRate": ratio(day["passed"], day["runs"])} for day in days
        ],
    }
