"""The runner's intake (POST /internal/runs and friends), and the service's own token wall."""

from __future__ import annotations

import time
import uuid

import aiohttp
import pytest

from libs.common.internal_token import HEADER, Caller, Organization, mint, service_caller
from tests.factories import IdentityFactory, SimulationFactory


async def test_the_intake_answers_a_task_and_an_environment_with_their_organization(
    identity: IdentityFactory, simulations: SimulationFactory
):
    org = await identity.organization()
    task_id, environment_id = str(uuid.uuid4()), str(uuid.uuid4())
    task_body = {"id": task_id, "organizationId": org.id, "name": "Checkout", "category": "commerce"}
    status, task = await simulations.post("/internal/tasks", task_body)
    assert (status, task) == (
        201,
        {"id": task_id, "name": "Checkout", "category": "commerce", "organizationId": org.id},
    )
    environment_body = {
        "id": environment_id,
        "organizationId": org.id,
        "taskId": task_id,
        "name": "browser",
        "agentConfig": {"steps": 10},
    }
    status, environment = await simulations.post("/internal/environments", environment_body)
    assert (status, environment) == (
        201,
        {
            "id": environment_id,
            "name": "browser",
            "agentConfig": {"steps": 10},
            "task": {"id": task_id, "name": "Checkout", "category": "commerce"},
            "organizationId": org.id,
        },
    )
    # A replayed id answers what was stored, not what the replay says.
    assert await simulations.post("/internal/tasks", {**task_body, "name": "Other"}) == (201, task)
    assert await simulations.post("/internal/environments", {**environment_body, "name": "other"}) == (201, environment)


async def test_recording_a_run_stores_it(gateway, identity: IdentityFactory, simulations: SimulationFactory):
    org = await identity.organization()
    environment = await simulations.environment(org)
    run_id = str(uuid.uuid4())
    run = await simulations.run(
        org,
        environment,
        id=run_id,
        status="completed",
        passed=True,
        overallScore=0.75,
        tokensUsed=1200,
        costUsd=0.02,
        startedAt="2026-11-20T10:00:00+00:00",
        completedAt="2026-11-20T10:05:00+00:00",
        duration=300,
        volumeIds=["vol-1"],
        logS3Keys={"stdout": "logs/1"},
        metadata={"attempt": 1},
    )
    assert run["id"] == run_id
    assert run["startedAt"] == "2026-11-20T10:00:00+00:00"
    response = await gateway.get("/api/v1/agent-simulation/runs", headers={"x-api-key": await identity.api_key(org)})
    listed = (await response.json())["data"]["runs"]
    assert listed == [run]
    assert listed[0]["logS3Keys"] == {"stdout": "logs/1"}
    assert listed[0]["overallScore"] == 0.75


async def test_tokens_used_is_a_number_as_the_contract_types_it(
    gateway, identity: IdentityFactory, simulations: SimulationFactory
):
    org = await identity.organization()
    environment = await simulations.environment(org)
    fractional = await simulations.run(org, environment, tokensUsed=1234.5)
    whole = await simulations.run(org, environment, tokensUsed=1200)
    assert (fractional["tokensUsed"], whole["tokensUsed"]) == (1234.5, 1200)
    response = await gateway.get("/api/v1/agent-simulation/runs", headers={"x-api-key": await identity.api_key(org)})
    listed = {run["id"]: run["tokensUsed"] for run in (await response.json())["data"]["runs"]}
    assert listed == {fractional["id"]: 1234.5, whole["id"]: 1200}
    document = await (await gateway.get("/api/v1/openapi.json")).json()
    assert document["components"]["schemas"]["Run"]["properties"]["tokensUsed"]["type"] == ["number", "null"]


async def test_replaying_a_run_id_returns_the_stored_run(identity: IdentityFactory, simulations: SimulationFactory):
    org = await identity.organization()
    environment = await simulations.environment(org)
    first = await simulations.run(org, environment, id=str(uuid.uuid4()), status="running")
    body = {
        "organizationId": org.id,
        "environmentId": environment["id"],
        "taskId": environment["task"]["id"],
        "id": first["id"],
        "status": "completed",
    }
    status, replay = await simulations.post("/internal/runs", body)
    assert status == 200
    assert replay == first  # the stored run, not overwritten by the replay


async def test_a_run_id_of_another_organization_is_a_conflict(
    identity: IdentityFactory, simulations: SimulationFactory
):
    org, other = await identity.organization(), await identity.organization()
    first = await simulations.run(org, await simulations.environment(org), id=str(uuid.uuid4()))
    environment = await simulations.environment(other)
    body = {
        "organizationId": other.id,
        "environmentId": environment["id"],
        "taskId": environment["task"]["id"],
        "id": first["id"],
        "status": "completed",
    }
    status, answer = await simulations.post("/internal/runs", body)
    assert status == 409
    assert answer["code"] == "CONFLICT"


async def test_an_environment_of_another_organization_is_refused(identity: IdentityFactory, simulations):
    org, other = await identity.organization(), await identity.organization()
    theirs = await simulations.environment(other)
    body = {"organizationId": org.id, "environmentId": theirs["id"], "taskId": theirs["task"]["id"], "status": "x"}
    status, answer = await simulations.post("/internal/runs", body)
    assert status == 422
    assert answer["details"] == {"environmentId": "No such environment in this organization."}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("passed", "yes"),
        ("tokensUsed", "1200"),
        ("tokensUsed", -1),
        ("tokensUsed", True),
        ("costUsd", "0.1"),
        ("overallScore", True),
        ("startedAt", "yesterday"),
        ("startedAt", "2026-11-20T10:00:00"),
        ("status", ""),
        ("id", "123"),
    ],
)
async def test_ill_typed_fields_are_refused(identity: IdentityFactory, simulations: SimulationFactory, field, value):
    org = await identity.organization()
    environment = await simulations.environment(org)
    body = {
        "organizationId": org.id,
        "environmentId": environment["id"],
        "taskId": environment["task"]["id"],
        "status": "completed",
        field: value,
    }
    status, answer = await simulations.post("/internal/runs", body)
    assert status == 422
    assert field in answer["details"]


async def call_runs(stack, token: str | None) -> tuple[int, dict]:
    headers = {HEADER: token} if token is not None else {}
    url = stack.servers["simulations"].make_url("/api/v1/agent-simulation/runs")
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as response:
        return response.status, await response.json()


async def test_the_service_refuses_requests_without_a_token(stack):
    status, body = await call_runs(stack, None)
    assert (status, body["code"]) == (401, "UNAUTHORIZED")


async def test_the_service_refuses_a_token_signed_with_another_secret(stack):
    caller = Caller("api_key", "k", Organization(str(uuid.uuid4()), "o", "O"), frozenset({"simulations:read"}))
    status, body = await call_runs(stack, mint("another-secret-of-sufficient-length-0123456789", caller))
    assert (status, body["message"]) == (401, "invalid internal token")


async def test_the_service_refuses_an_expired_token(stack):
    caller = service_caller("runner", Organization(str(uuid.uuid4()), "o", "O"))
    token = mint(stack.environ["INTERNAL_TOKEN_SECRET"], caller, now=time.time() - 120)
    status, body = await call_runs(stack, token)
    assert (status, body["message"]) == (401, "invalid internal token")


async def test_a_service_token_without_organization_cannot_list_runs(stack):
    status, body = await call_runs(stack, mint(stack.environ["INTERNAL_TOKEN_SECRET"], service_caller("runner")))
    assert (status, body["message"]) == (401, "an organization is required")
