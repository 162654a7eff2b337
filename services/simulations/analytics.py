"""Simulation analytics: per task and environment over a time range, the pass rate, pass^k (τ-bench:
the chance that k trials drawn from the n run all pass, C(c, k) / C(n, k) with c passing), the mean
score and the median steps and bytes; every ratio with its numerator and denominator.

Only completed runs count: a failed or cancelled run gave no answer to judge, so it leaves every
denominator. Overall, pass^k is the mean of the groups' (as τ-bench averages over tasks).

The answer is made by the shapes of its response schemas (libs/common/shapes.py) from rows of
sums: a group's and a day's as PostgreSQL adds them up, every group's together here.
"""

from __future__ import annotations

from datetime import datetime
from math import comb
from typing import Any

from libs.common.db import fetch_all
from libs.common.ratios import ratio
from libs.common.shapes import Row, Shape
from services.simulations import task_schemas as schemas
from services.simulations.shapes import TASK

# pass^k is given for k = 1 … min(n, K_MAX): the most trials one request queues.
K_MAX = 20


def pass_hat_k(passed: int, runs: int) -> list[dict[str, Any]]:
    return [{"k": k, **ratio(comb(passed, k), comb(runs, k))} for k in range(1, min(runs, K_MAX) + 1)]


def _mean(sums: Row) -> float | None:
    return sums["sum"] / sums["count"] if sums["count"] else None


MEAN = Shape(schemas.Mean, computed={"value": _mean})
MEAN_PASS_HAT_K = Shape(schemas.MeanPassHatK, computed={"value": _mean})
# What a group, a day and every group together make of their runs, passed runs and score sum.
RATES = {
    "pass_rate": lambda sums: ratio(sums["passed"], sums["runs"]),
    "mean_score": lambda sums: MEAN.of({"sum": sums["score_sum"], "count": sums["scored"]}),
}
# `r` a completed run, `t` its task, `e` its environment; grouped by task and environment.
GROUP = Shape(
    schemas.AnalyticsGroup,
    expressions={
        "task": TASK.json_sql("t"),
        "environment": Shape(schemas.EnvironmentName).json_sql("e"),
        "runs": "count(*)",
        "median_steps": "percentile_cont(0.5) WITHIN GROUP (ORDER BY jsonb_array_length(r.metadata -> 'visited'))",
        "median_bytes": "percentile_cont(0.5) WITHIN GROUP (ORDER BY (r.metadata ->> 'bytesRead')::bigint)",
    },
    computed={**RATES, "pass_hat_k": lambda sums: pass_hat_k(sums["passed"], sums["runs"])},
)
DAY = Shape(
    schemas.AnalyticsDay,
    expressions={"day": "to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')", "runs": "count(*)"},
    computed={"pass_rate": RATES["pass_rate"]},
)
OVERALL = Shape(schemas.AnalyticsOverall, computed=RATES)
ANALYTICS = Shape(schemas.Analytics)
PASSED = "count(*) FILTER (WHERE r.passed) AS passed"
# The mean score is over the runs that have one (the intake may record a run without it).
SCORES = "coalesce(sum(r.overall_score), 0) AS score_sum, count(r.overall_score) AS scored"


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
    params = {"org": organization_id, "start": start, "end": end, **filters}
    rows = await fetch_all(
        cur,
        f"SELECT {GROUP.columns}, {PASSED}, {SCORES}"
        " FROM runs r JOIN tasks t ON t.id = r.task_id JOIN environments e ON e.id = r.environment_id"
        f" WHERE {' AND '.join(where)} GROUP BY t.id, e.id ORDER BY t.name, e.name, e.id",
        params,
    )
    days = await fetch_all(
        cur, f"SELECT {DAY.columns}, {PASSED} FROM runs r WHERE {' AND '.join(where)} GROUP BY day ORDER BY day", params
    )
    groups = [GROUP.of(row) for row in rows]
    overall_k = []
    for k in range(1, K_MAX + 1):
        estimates = [group["passHatK"][k - 1]["value"] for group in groups if len(group["passHatK"]) >= k]
        if estimates:
            overall_k.append(MEAN_PASS_HAT_K.of({"k": k, "sum": sum(estimates), "count": len(estimates)}))
    overall = {
        "runs": sum(row["runs"] for row in rows),
        "passed": sum(row["passed"] for row in rows),
        "score_sum": sum(row["score_sum"] for row in rows),
        "scored": sum(row["scored"] for row in rows),
        "pass_hat_k": overall_k,
    }
    answer = {"start": start, "end": end, "time_zone": "UTC", "groups": groups, "overall": OVERALL.of(overall)}
    return ANALYTICS.of({**answer, "days": [DAY.of(day) for day in days]})
