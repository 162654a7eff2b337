"""The demo seed's simulations, run by the part's workers: two tasks pass, the refund one fails
and its criteria say why."""

from __future__ import annotations

from deploy import seed
from tests.integration.support import call
from tests.simulations import site as s


async def test_the_demo_tasks_pass_but_the_refund_policy_which_the_app_does_not_publish(gateway, database, tmp_path):
    demo = await seed.seed(database.admin_dsn, tmp_path / "demo-api-key")
    headers = {"x-api-key": demo.key}
    status, listed = await call(gateway, "GET", f"{s.BASE}/runs", headers, params={"limit": "50"})
    assert status == 200 and listed["data"]["total"] == 5
    runs = {run["id"]: await s.ended(gateway, headers, run["id"], timeout=60) for run in listed["data"]["runs"]}
    by_task: dict[str, set] = {}
    for run in runs.values():
        by_task.setdefault(run["task"]["name"], set()).add((run["status"], run["passed"]))
    assert by_task == {
        "Find the monthly price": {("completed", True)},
        "Learn how to authenticate": {("completed", True)},
        "Find the refund policy": {("completed", False)},
    }
    [refunds] = [run for run in runs.values() if run["task"]["name"] == "Find the refund policy"]
    assert [verdict["why"] for verdict in refunds["metadata"]["criteria"]] == [
        "the agent gave no answer",
        "the agent answered from no page; /refunds was wanted",
    ]
