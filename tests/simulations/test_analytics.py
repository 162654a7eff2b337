"""Simulation analytics: pass^k as τ-bench defines it, and the figures through the gateway."""

from __future__ import annotations

from math import comb

from services.simulations.analytics import pass_hat_k
from tests.factories import ContentFactory, DomainFactory
from tests.integration.support import call
from tests.simulations import site as s


def test_pass_hat_k_is_the_chance_that_k_trials_drawn_all_pass():
    assert pass_hat_k(2, 3) == [
        {"k": 1, "value": 2 / 3, "count": 2, "total": 3},
        {"k": 2, "value": 1 / 3, "count": 1, "total": 3},
        {"k": 3, "value": 0.0, "count": 0, "total": 1},
    ]
    assert [item["value"] for item in pass_hat_k(4, 4)] == [1.0, 1.0, 1.0, 1.0]
    assert len(pass_hat_k(30, 30)) == 20


async def test_analytics_count_completed_runs_per_task_and_environment(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    price = await s.task(gateway, headers, app.app["id"], name="Price")
    # One page read in an order the seed draws: some trials read the pricing page, others not.
    wandering = await s.environment(gateway, headers, price["id"], maxPages=1, temperature=5.0, seed=3)
    settled = await s.environment(gateway, headers, price["id"])
    runs = [*await s.run(gateway, headers, wandering["id"], trials=4), *await s.run(gateway, headers, settled["id"])]
    ended = {run["id"]: await s.ended(gateway, headers, run["id"]) for run in runs}
    status, answer = await call(gateway, "POST", f"{s.BASE}/runs/{runs[-1]['id']}/cancel", headers)
    assert status == 409  # ended already: every run here completed

    status, body = await call(gateway, "GET", f"{s.BASE}/analytics", headers, params={"taskId": price["id"]})
    assert status == 200, body
    data = body["data"]
    assert data["timeZone"] == "UTC"
    groups = {group["environment"]["id"]: group for group in data["groups"]}
    passed = sum(1 for run in runs[:4] if ended[run["id"]]["passed"])
    group = groups[wandering["id"]]
    assert group["runs"] == 4 and group["passRate"] == {"value": passed / 4, "count": passed, "total": 4}
    assert [item["count"] for item in group["passHatK"]] == [comb(passed, k) for k in range(1, 5)]
    assert group["meanScore"]["sum"] == sum(ended[run["id"]]["overallScore"] for run in runs[:4])
    assert group["medianSteps"] == 2 and group["medianBytes"] > 0
    assert groups[settled["id"]]["passRate"] == {"value": 1.0, "count": 1, "total": 1}
    assert data["overall"]["runs"] == 5 and data["overall"]["passRate"]["count"] == passed + 1
    assert data["overall"]["passHatK"][0]["count"] == 2
    today = ended[runs[0]["id"]]["createdAt"][:10]
    assert data["days"] == [
        {"day": today, "runs": 5, "passRate": {"value": (passed + 1) / 5, "count": passed + 1, "total": 5}}
    ]


async def test_an_empty_or_inverted_range(gateway, tenant):
    _, _, headers = tenant
    status, body = await call(gateway, "GET", f"{s.BASE}/analytics", headers)
    assert status == 200 and body["data"]["groups"] == [] and body["data"]["overall"]["passRate"]["value"] is None
    assert body["data"]["days"] == []
    params = {"from": "2026-11-02T00:00:00Z", "to": "2026-11-01T00:00:00Z"}
    status, body = await call(gateway, "GET", f"{s.BASE}/analytics", headers, params=params)
    assert (status, body["code"]) == (422, "VALIDATION_FAILED")


async def test_a_completed_run_without_a_score_leaves_the_mean_score_alone(gateway, tenant, simulations):
    """A run recorded without `overallScore` (the intake allows it) counts for the pass rate and
    not for the mean score: the mean is over the runs that have a score."""
    org, _, headers = tenant
    environment = await simulations.environment(org)
    await simulations.run(org, environment, passed=True, overallScore=0.5)
    await simulations.run(org, environment, passed=False)
    status, body = await call(gateway, "GET", f"{s.BASE}/analytics", headers)
    assert status == 200, body
    (group,) = body["data"]["groups"]
    assert group["runs"] == 2 and group["passRate"] == {"value": 0.5, "count": 1, "total": 2}
    assert group["meanScore"] == {"value": 0.5, "sum": 0.5, "count": 1}
    assert body["data"]["overall"]["meanScore"] == {"value": 0.5, "sum": 0.5, "count": 1}
