"""GET /api/v1/agent-simulation/runs through the gateway: shape, order, filters, pages, isolation."""

from __future__ import annotations

import uuid

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.factories import IdentityFactory, SimulationFactory

RUNS = "/api/v1/agent-simulation/runs"

RUN_KEYS = {
    "id",
    "environmentId",
    "taskId",
    "organizationId",
    "status",
    "sandboxId",
    "sandboxSnapshot",
    "overallScore",
    "passed",
    "tokensUsed",
    "costUsd",
    "startedAt",
    "completedAt",
    "createdAt",
    "updatedAt",
    "deletedAt",
    "duration",
    "volumeIds",
    "logS3Keys",
    "metadata",
    "environment",
    "task",
}


async def list_runs(gateway, key: str, **params):
    response = await gateway.get(RUNS, params=params, headers={"x-api-key": key})
    return response.status, await response.json()


@pytest.fixture
async def org_with_runs(identity: IdentityFactory, simulations: SimulationFactory):
    """An organization with five runs in two environments, recorded oldest first."""
    org = await identity.organization()
    browser, chat = await simulations.environment(org, "browser"), await simulations.environment(org, "chat")
    outcomes = [
        (browser, "completed", True),
        (browser, "failed", False),
        (chat, "completed", True),
        (chat, "running", None),
        (browser, "completed", False),
    ]
    runs = [await simulations.run(org, env, status=status, passed=passed) for env, status, passed in outcomes]
    return org, await identity.api_key(org), runs, browser, chat


async def test_lists_runs_newest_first_with_environment_and_task(gateway, org_with_runs):
    org, key, runs, browser, _ = org_with_runs
    status, body = await list_runs(gateway, key)
    assert status == 200
    assert body["ok"] is True
    data = body["data"]
    assert data["total"] == 5
    assert [run["id"] for run in data["runs"]] == [run["id"] for run in reversed(runs)]
    first = data["runs"][0]
    assert set(first) == RUN_KEYS
    assert first["organizationId"] == org.id
    assert first["deletedAt"] is None
    assert first["environment"] == {
        "id": browser["id"],
        "name": "browser",
        "agentConfig": {"model": "m"},
        "task": {"id": browser["task"]["id"], "name": "task", "category": "web"},
    }
    assert first["task"] == {"id": browser["task"]["id"], "name": "task", "category": "web"}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"status": "completed"}, [4, 2, 0]),
        ({"passed": "true"}, [2, 0]),
        ({"passed": "false"}, [4, 1]),
        ({"status": "completed", "passed": "false"}, [4]),
    ],
)
async def test_filters_by_status_and_outcome(gateway, org_with_runs, params, expected):
    _, key, runs, _, _ = org_with_runs
    status, body = await list_runs(gateway, key, **params)
    assert status == 200
    assert [run["id"] for run in body["data"]["runs"]] == [runs[index]["id"] for index in expected]
    assert body["data"]["total"] == len(expected)


async def test_filters_by_environment_and_task(gateway, org_with_runs):
    _, key, runs, browser, chat = org_with_runs
    _, by_environment = await list_runs(gateway, key, environmentId=chat["id"])
    assert [run["id"] for run in by_environment["data"]["runs"]] == [runs[3]["id"], runs[2]["id"]]
    _, by_task = await list_runs(gateway, key, taskId=browser["task"]["id"])
    assert by_task["data"]["total"] == 3


async def test_pages_with_limit_and_offset_keep_the_total(gateway, org_with_runs):
    _, key, runs, _, _ = org_with_runs
    newest_first = [run["id"] for run in reversed(runs)]
    _, first = await list_runs(gateway, key, limit="2")
    _, second = await list_runs(gateway, key, limit="2", offset="2")
    _, past_the_end = await list_runs(gateway, key, limit="2", offset="10")
    assert [run["id"] for run in first["data"]["runs"]] == newest_first[:2]
    assert [run["id"] for run in second["data"]["runs"]] == newest_first[2:4]
    assert past_the_end["data"] == {"runs": [], "total": 5}
    assert first["data"]["total"] == second["data"]["total"] == 5


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "201"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"offset": "57453134832421649536670781931520"}, "offset"),
        ({"passed": "maybe"}, "passed"),
        ({"environmentId": "not-a-uuid"}, "environmentId"),
        ({"status": ""}, "status"),
        ({"sort": "name"}, "sort"),
    ],
)
async def test_invalid_parameters_are_422_naming_the_field(gateway, identity: IdentityFactory, params, field):
    org = await identity.organization()
    status, body = await list_runs(gateway, await identity.api_key(org), **params)
    assert status == 422
    assert body["ok"] is False
    assert body["code"] == "VALIDATION_FAILED"
    assert field in body["details"]


async def test_limit_boundaries_are_accepted(gateway, org_with_runs):
    _, key, _, _, _ = org_with_runs
    for limit in ("1", "200"):
        status, body = await list_runs(gateway, key, limit=limit)
        assert status == 200
        assert len(body["data"]["runs"]) == min(int(limit), 5)


async def test_another_organizations_runs_are_never_seen(gateway, identity: IdentityFactory, org_with_runs):
    _, _, runs, browser, _ = org_with_runs
    intruder = await identity.organization()
    key = await identity.api_key(intruder)
    _, everything = await list_runs(gateway, key)
    _, by_their_environment = await list_runs(gateway, key, environmentId=browser["id"])
    _, by_their_task = await list_runs(gateway, key, taskId=browser["task"]["id"], status="completed")
    assert everything["data"] == {"runs": [], "total": 0}
    assert by_their_environment["data"] == {"runs": [], "total": 0}
    assert by_their_task["data"] == {"runs": [], "total": 0}


async def test_soft_deleted_runs_are_left_out(gateway, org_with_runs, stack):
    import psycopg2

    from libs.contract.parts import SIMULATIONS

    _, key, runs, _, _ = org_with_runs
    conn = psycopg2.connect(stack.database.dsn(SIMULATIONS))
    with conn, conn.cursor() as cur:
        cur.execute("UPDATE simulations.runs SET deleted_at = now() WHERE id = %s", (runs[0]["id"],))
    conn.close()
    _, body = await list_runs(gateway, key)
    assert body["data"]["total"] == 4
    assert runs[0]["id"] not in {run["id"] for run in body["data"]["runs"]}


async def test_requires_the_simulations_read_scope(gateway, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org, scopes=ALL_SCOPES - {"simulations:read"})
    status, body = await list_runs(gateway, key)
    assert status == 403
    assert body == {
        "ok": False,
        "code": "FORBIDDEN",
        "message": "this credential lacks the scope simulations:read",
        "details": {"requiredScope": "simulations:read"},
    }


async def test_unknown_environment_filter_matches_nothing(gateway, org_with_runs):
    _, key, _, _, _ = org_with_runs
    status, body = await list_runs(gateway, key, environmentId=str(uuid.uuid4()))
    assert status == 200
    assert body["data"] == {"runs": [], "total": 0}
