"""API keys across replicas: revocation reaches every gateway within two seconds; use is recorded."""

from __future__ import annotations

import asyncio
import time

from gateway.state import KEY_STORE
from libs.common.db import cursor
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


async def test_a_revoked_key_is_refused_by_every_replica_within_two_seconds(stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    replica = await stack.start_gateway()
    try:
        replicas = (stack.gateway, replica)
        for gateway in replicas:
            assert (await gateway.get(RUNS, headers={"x-api-key": key})).status == 200  # now cached
        await identity.revoke(key[:12])
        revoked_at = time.monotonic()
        refused_after = {}
        while len(refused_after) < len(replicas) and time.monotonic() - revoked_at < 5:
            for index, gateway in enumerate(replicas):
                if index not in refused_after:
                    response = await gateway.get(RUNS, headers={"x-api-key": key})
                    if response.status == 401:
                        assert (await response.json())["message"] == "invalid api key"
                        refused_after[index] = time.monotonic() - revoked_at
            await asyncio.sleep(0.05)
        assert sorted(refused_after) == [0, 1]
        assert max(refused_after.values()) < 2.0
    finally:
        await replica.close()


async def test_last_used_is_recorded_off_the_request_path(gateway, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    assert (await gateway.get(RUNS, headers={"x-api-key": key})).status == 200
    await gateway.app[KEY_STORE].flush_last_used()
    async with cursor(identity.pool) as cur:
        await cur.execute("SELECT last_used_at FROM api_keys WHERE prefix = %s", (key[:12],))
        row = await cur.fetchone()
    assert row["last_used_at"] is not None
