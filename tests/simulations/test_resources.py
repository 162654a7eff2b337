"""Tasks, environments and run requests through the gateway: what is stored, what is refused,
and that one organization never reaches another's."""

from __future__ import annotations

import uuid

from tests.factories import IdentityFactory
from tests.integration.support import call
from tests.simulations import site as s

BASE = s.BASE


async def test_a_task_is_stored_listed_changed_and_deleted(gateway, tenant):
    _, _, headers = tenant
    app_id = str(uuid.uuid4())
    task = await s.task(gateway, headers, app_id, referenceAnswer="$49 per month", rerunOnChange=True)
    assert task["criteria"] == [{"type": "must_include", "value": "$49", "required": True, "weight": 1.0}]
    assert (task["appId"], task["stepBudget"], task["rerunOnChange"]) == (app_id, 8, True)
    second = await s.task(gateway, headers, app_id, name="Second")

    status, page = await call(gateway, "GET", f"{BASE}/tasks", headers, params={"limit": "1"})
    assert status == 200 and [item["id"] for item in page["data"]["items"]] == [second["id"]]
    status, rest = await call(
        gateway, "GET", f"{BASE}/tasks", headers, params={"limit": "1", "cursor": page["data"]["nextCursor"]}
    )
    assert [item["id"] for item in rest["data"]["items"]] == [task["id"]] and rest["data"]["nextCursor"] is None

    status, changed = await call(gateway, "PATCH", f"{BASE}/tasks/{task['id']}", headers, json={"stepBudget": 3})
    assert status == 200 and changed["data"]["stepBudget"] == 3 and changed["data"]["name"] == task["name"]
    status, shown = await call(gateway, "GET", f"{BASE}/tasks/{task['id']}", headers)
    assert shown["data"] == changed["data"]

    status, _ = await call(gateway, "DELETE", f"{BASE}/tasks/{task['id']}", headers)
    assert status == 200
    status, gone = await call(gateway, "GET", f"{BASE}/tasks/{task['id']}", headers)
    assert (status, gone["message"]) == (404, "task not found")


async def test_bad_criteria_and_configurations_are_refused(gateway, tenant):
    _, _, headers = tenant
    body = {"name": "t", "category": "c", "goal": "g", "appId": str(uuid.uuid4())}
    for criteria, field in (
        ([], "criteria"),
        ([{"type": "guess", "value": "x"}], "criteria.0.type"),
        ([{"type": "regex", "value": "("}], "criteria.0.value"),
    ):
        status, answer = await call(gateway, "POST", f"{BASE}/tasks", headers, json={**body, "criteria": criteria})
        assert (status, answer["code"]) == (422, "VALIDATION_FAILED"), answer
        assert field in answer["details"], answer
    task = await s.task(gateway, headers, body["appId"])
    body = {"name": "e", "taskId": task["id"], "agentConfig": {"entryPoint": "home"}}
    status, answer = await call(gateway, "POST", f"{BASE}/environments", headers, json=body)
    assert (status, list(answer["details"])) == (422, ["agentConfig.entryPoint"])


async def test_an_environment_shows_its_agent_with_every_default(gateway, tenant):
    _, _, headers = tenant
    task = await s.task(gateway, headers, str(uuid.uuid4()))
    environment = await s.environment(gateway, headers, task["id"], maxPages=2)
    assert environment["agentConfig"] == {
        "kind": "deterministic",
        "entryPoint": "llms_txt",
        "maxSteps": 8,
        "maxBytes": 2_000_000,
        "maxTokens": 100_000,
        "maxPages": 2,
        "userAgent": "AivisSimulator/1.0 (+agent-simulation)",
        "seed": 0,
        "temperature": 0.0,
    }
    assert environment["task"] == {"id": task["id"], "name": task["name"], "category": task["category"]}
    status, listed = await call(gateway, "GET", f"{BASE}/environments", headers, params={"taskId": task["id"]})
    assert status == 200 and listed["data"]["items"] == [environment]


async def test_another_organizations_tasks_environments_and_runs_are_out_of_reach(
    gateway, tenant, identity: IdentityFactory
):
    _, _, headers = tenant
    task = await s.task(gateway, headers, str(uuid.uuid4()))
    environment = await s.environment(gateway, headers, task["id"])
    other = await identity.organization()
    theirs = {"x-api-key": await identity.api_key(other)}

    for path in (f"{BASE}/tasks/{task['id']}", f"{BASE}/environments/{environment['id']}"):
        status, answer = await call(gateway, "GET", path, theirs)
        assert status == 404, answer
    status, answer = await call(gateway, "PATCH", f"{BASE}/tasks/{task['id']}", theirs, json={"name": "mine"})
    assert status == 404
    status, answer = await call(gateway, "DELETE", f"{BASE}/tasks/{task['id']}", theirs)
    assert status == 404
    status, answer = await call(
        gateway, "POST", f"{BASE}/environments", theirs, json={"name": "e", "taskId": task["id"]}
    )
    assert (status, answer["details"]) == (422, {"taskId": "No such task in this organization."})
    status, answer = await call(gateway, "POST", f"{BASE}/runs", theirs, json={"environmentId": environment["id"]})
    assert (status, answer["details"]) == (422, {"environmentId": "No such environment in this organization."})
    for path in (f"{BASE}/tasks", f"{BASE}/environments"):
        status, answer = await call(gateway, "GET", path, theirs)
        assert answer["data"]["items"] == []
    status, mine = await call(gateway, "GET", f"{BASE}/tasks/{task['id']}", headers)
    assert status == 200 and mine["data"]["name"] == task["name"]


async def test_reading_needs_simulations_read_and_writing_simulations_write(gateway, tenant, identity):
    org, _, _ = tenant
    reader = {"x-api-key": await identity.api_key(org, frozenset({"simulations:read"}))}
    status, answer = await call(gateway, "GET", f"{BASE}/tasks", reader)
    assert status == 200
    status, answer = await call(gateway, "POST", f"{BASE}/tasks", reader, json={})
    assert (status, answer["code"]) == (403, "FORBIDDEN")
