"""GET /api/v1/agent-simulation/runs/{runId} through the gateway: one run, the list's shape; another
organization's run, a deleted one or a malformed id is 404; the scope is simulations:read."""

from __future__ import annotations

import uuid

import psycopg2

from gateway.identity.auth.scopes import ALL_SCOPES
from libs.contract.parts import SIMULATIONS
from tests.factories import IdentityFactory, SimulationFactory

RUNS = "/api/v1/agent-simulation/runs"


async def get_run(gateway, key: str, run_id: str):
    response = await gateway.get(f"{RUNS}/{run_id}", headers={"x-api-key": key})
    return response.status, await response.json()


async def test_answers_one_run_as_the_list_shows_it(gateway, identity: IdentityFactory, simulations: SimulationFactory):
    org = await identity.organization()
    environment = await simulations.environment(org, "browser")
    run = await simulations.run(org, environment, status="failed", passed=False, metadata={"attempt": 2})
    await simulations.run(org, environment)
    key = await identity.api_key(org, frozenset({"simulations:read"}))
    status, body = await get_run(gateway, key, run["id"].upper())
    listed = (await (await gateway.get(RUNS, headers={"x-api-key": key})).json())["data"]["runs"]
    assert status == 200
    assert body == {"ok": True, "data": next(item for item in listed if item["id"] == run["id"])}
    assert (body["data"]["status"], body["data"]["metadata"]) == ("failed", {"attempt": 2})


async def test_another_organizations_run_is_not_found(gateway, identity: IdentityFactory, simulations):
    owner = await identity.organization()
    run = await simulations.run(owner, await simulations.environment(owner, "chat"))
    intruder_key = await identity.api_key(await identity.organization())
    status, body = await get_run(gateway, intruder_key, run["id"])
    unknown_status, unknown = await get_run(gateway, intruder_key, str(uuid.uuid4()))
    assert (status, body) == (404, {"ok": False, "code": "NOT_FOUND", "message": "run not found"})
    assert (unknown_status, unknown) == (status, body)


async def test_a_malformed_id_and_a_deleted_run_are_not_found(gateway, identity: IdentityFactory, simulations, stack):
    org = await identity.organization()
    run = await simulations.run(org, await simulations.environment(org, "chat"))
    key = await identity.api_key(org)
    assert (await get_run(gateway, key, "not-a-run"))[0] == 404
    conn = psycopg2.connect(stack.database.dsn(SIMULATIONS))
    with conn, conn.cursor() as cur:
        cur.execute("UPDATE simulations.runs SET deleted_at = now() WHERE id = %s", (run["id"],))
    conn.close()
    assert (await get_run(gateway, key, run["id"]))[0] == 404


async def test_requires_the_simulations_read_scope(gateway, identity: IdentityFactory, simulations):
    org = await identity.organization()
    run = await simulations.run(org, await simulations.environment(org, "chat"))
    key = await identity.api_key(org, scopes=ALL_SCOPES - {"simulations:read"})
    status, body = await get_run(gateway, key, run["id"])
    assert (status, body["details"]) == (403, {"requiredScope": "simulations:read"})
