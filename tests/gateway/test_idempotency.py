"""`Idempotency-Key` on writes: replay, reuse with another request, a first request still running,
answers that are not kept, and keys kept in PostgreSQL per organization and caller."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from functools import partial

import pytest
from aiohttp import web

from gateway import contract as gateway_contract
from gateway.edge.idempotency import CLAIM, COMPLETE_SINCE, Claim, record_name
from gateway.state import IDEMPOTENCY
from libs.common.db import cursor, fetch_one
from libs.common.redis_client import create_redis
from libs.common.state import REDIS, SETTINGS
from libs.contract.route import Route
from libs.local.ports import free_port
from tests.factories import IdentityFactory, Org

write = partial(Route, tag="Content")
ROUTES = (
    *gateway_contract.ROUTES,
    write("POST", "/api/v1/things", "content", "content:write", "things_create", "Create", status=201),
    write("PUT", "/api/v1/things/{id}", "content", "content:write", "things_put", "Put"),
    write("GET", "/api/v1/things", "content", "content:read", "things_list", "List"),
    write("POST", "/api/v1/held", "content", "content:write", "held", "Held"),
    write("POST", "/api/v1/flaky", "content", "content:write", "flaky", "Fails once", status=201),
    write("POST", "/api/v1/taken", "content", "content:write", "taken", "Always 409"),
)


@dataclass
class Things:
    """A service that counts the writes it ran; `held` waits for `release`, `flaky` fails its first call."""

    calls: int = 0
    release: asyncio.Event = field(default_factory=asyncio.Event)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> web.Application:
        async def things(request: web.Request) -> web.Response:
            self.calls += 1
            body = await request.read()
            if request.path == "/api/v1/held":
                self.arrived.set()
                await self.release.wait()
            if request.path == "/api/v1/flaky" and self.calls == 1:
                return web.json_response({"code": "INTERNAL_ERROR", "message": "internal error"}, status=500)
            if request.path == "/api/v1/taken":
                return web.json_response({"code": "CONFLICT", "message": "that name is taken"}, status=409)
            status = 201 if request.method == "POST" else 200
            return web.json_response(
                {"call": self.calls, "body": body.decode()}, status=status, headers={"ETag": f'"{self.calls}"'}
            )

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", things)
        return app


@pytest.fixture
def things() -> Things:
    return Things()


@pytest.fixture
async def api(gateway_to, things: Things):
    return await gateway_to(things.app())


@pytest.fixture
async def org(identity: IdentityFactory) -> Org:
    return await identity.organization()


@pytest.fixture
async def key(identity: IdentityFactory, org: Org) -> dict[str, str]:
    return {"x-api-key": await identity.api_key(org)}


def keyed(credential: dict[str, str], key: str) -> dict[str, str]:
    return {**credential, "Idempotency-Key": key}


async def test_the_same_request_again_answers_the_stored_result(api, things, key, identity):
    first = await api.post("/api/v1/things", json={"name": "a"}, headers=keyed(key, "k-1"))
    again = await api.post("/api/v1/things", json={"name": "a"}, headers=keyed(key, "k-1"))
    assert first.status == again.status == 201
    assert await first.json() == await again.json() == {"ok": True, "data": {"call": 1, "body": '{"name": "a"}'}}
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["ETag"] == first.headers["ETag"] == '"1"'
    assert "RateLimit-Remaining" in again.headers
    assert things.calls == 1
    async with cursor(identity.pool) as cur:
        stored = await fetch_one(cur, "SELECT status, body FROM idempotency_keys WHERE key = 'k-1'")
    assert stored is not None and stored["status"] == 201 and bytes(stored["body"]) == await first.read()


async def test_a_key_with_another_body_or_path_is_a_422_naming_the_conflict(api, things, key):
    assert (await api.post("/api/v1/things", json={"name": "a"}, headers=keyed(key, "k-2"))).status == 201
    other_body = await api.post("/api/v1/things", json={"name": "b"}, headers=keyed(key, "k-2"))
    other_path = await api.put("/api/v1/things/1", json={"name": "a"}, headers=keyed(key, "k-2"))
    for response in (other_body, other_path):
        assert response.status == 422
        body = await response.json()
        assert body["code"] == "IDEMPOTENCY_KEY_REUSED"
        assert body["details"] == {"Idempotency-Key": "k-2"}
        assert "different request" in body["message"] or "another method, path or body" in body["message"]
    assert things.calls == 1


async def test_a_second_request_while_the_first_runs_is_a_409_and_then_replays(api, things, key):
    first = asyncio.create_task(api.post("/api/v1/held", json={}, headers=keyed(key, "k-3")))
    await asyncio.wait_for(things.arrived.wait(), 5)
    second = await api.post("/api/v1/held", json={}, headers=keyed(key, "k-3"))
    assert second.status == 409
    body = await second.json()
    assert body["code"] == "IDEMPOTENCY_IN_PROGRESS" and "retry" in body["message"]
    assert second.headers["Retry-After"] == "1"
    things.release.set()
    answered = await first
    assert answered.status == 201
    third = await api.post("/api/v1/held", json={}, headers=keyed(key, "k-3"))
    assert third.headers["Idempotent-Replayed"] == "true"
    assert await third.json() == await answered.json()
    assert things.calls == 1


async def test_another_credential_or_organization_does_not_see_the_key(api, things, key, org, identity):
    stranger = {"x-api-key": await identity.api_key(await identity.organization())}
    colleague = {"x-api-key": await identity.api_key(org)}
    for credential in (stranger, colleague):
        response = await api.post("/api/v1/things", json={"name": "a"}, headers=keyed(credential, "shared"))
        assert response.status == 201 and "Idempotent-Replayed" not in response.headers
    mine = await api.post("/api/v1/things", json={"name": "a"}, headers=keyed(key, "shared"))
    assert "Idempotent-Replayed" not in mine.headers
    assert things.calls == 3


@pytest.mark.parametrize("value", ["", "x" * 256])
async def test_a_key_outside_1_to_255_characters_is_a_400(api, things, key, value):
    response = await api.post("/api/v1/things", json={}, headers=keyed(key, value))
    assert response.status == 400
    body = await response.json()
    assert body["code"] == "BAD_REQUEST" and "Idempotency-Key" in body["details"]
    assert things.calls == 0
    assert (await api.post("/api/v1/things", json={}, headers=keyed(key, "x" * 255))).status == 201


async def test_a_5xx_is_not_kept_so_a_retry_runs_again(api, things, key):
    failed = await api.post("/api/v1/flaky", json={}, headers=keyed(key, "k-5"))
    assert failed.status == 500
    retried = await api.post("/api/v1/flaky", json={}, headers=keyed(key, "k-5"))
    assert retried.status == 201 and "Idempotent-Replayed" not in retried.headers
    assert (await retried.json())["data"]["call"] == 2


async def test_a_refusal_below_500_is_kept_and_replayed(api, things, key):
    refused = await api.post("/api/v1/taken", json={}, headers=keyed(key, "k-6"))
    again = await api.post("/api/v1/taken", json={}, headers=keyed(key, "k-6"))
    assert refused.status == again.status == 409
    assert (
        await again.json() == await refused.json() == {"ok": False, "code": "CONFLICT", "message": "that name is taken"}
    )
    assert again.headers["Idempotent-Replayed"] == "true"
    assert things.calls == 1


async def test_reads_ignore_the_key(api, things, key):
    for _ in range(2):
        response = await api.get("/api/v1/things", headers=keyed(key, "k-7"))
        assert response.status == 200 and "Idempotent-Replayed" not in response.headers
    assert things.calls == 2


async def test_a_claim_left_by_a_gateway_that_died_is_free_once_expired(api, things, key, identity):
    assert (await api.post("/api/v1/things", json={}, headers=keyed(key, "k-8"))).status == 201
    redis = api.server.app[REDIS]
    await api.server.app[IDEMPOTENCY].answers.drain()
    async with cursor(identity.pool) as cur:
        row = await fetch_one(cur, "SELECT organization_id, caller FROM idempotency_keys WHERE key = 'k-8'")
    assert row is not None
    record = record_name(api.server.app[SETTINGS].redis_prefix, str(row["organization_id"]), row["caller"], "k-8")
    assert await redis.exists(record)

    async def died_mid_request(seconds_left: float) -> None:
        """What a gateway killed while the request ran leaves: its claim in Redis, no answer."""
        await api.server.app[IDEMPOTENCY].answers.drain()
        claim = Claim.decode(await redis.get(record))
        await redis.set(record, replace(claim, until=time.time() + seconds_left).encode())
        async with cursor(identity.pool) as cur:
            await cur.execute("DELETE FROM idempotency_keys WHERE key = 'k-8'")

    await died_mid_request(10)
    assert (await api.post("/api/v1/things", json={}, headers=keyed(key, "k-8"))).status == 409
    await died_mid_request(-1)
    retried = await api.post("/api/v1/things", json={}, headers=keyed(key, "k-8"))
    assert retried.status == 201 and "Idempotent-Replayed" not in retried.headers
    assert (await retried.json())["data"]["call"] == 2
    replayed = await api.post("/api/v1/things", json={}, headers=keyed(key, "k-8"))
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert things.calls == 2


async def test_a_redis_that_lost_its_claims_replays_from_postgresql(api, things, key):
    first = await api.post("/api/v1/things", json={"n": 1}, headers=keyed(key, "k-lost"))
    redis, prefix = api.server.app[REDIS], api.server.app[SETTINGS].redis_prefix
    await api.server.app[IDEMPOTENCY].answers.drain()
    await redis.delete(*await redis.keys(prefix + "idempotency:*"))  # restarted empty
    again = await api.post("/api/v1/things", json={"n": 1}, headers=keyed(key, "k-lost"))
    assert again.status == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert await again.json() == await first.json()
    assert things.calls == 1
    # From then on, Redis is trusted with a key's absence only when it has held every claim for 24 hours.
    assert time.time() - float(await redis.get(prefix + COMPLETE_SINCE)) < 60
    assert (await api.post("/api/v1/things", json={}, headers=keyed(key, "k-new"))).status == 201
    assert things.calls == 2


async def test_claims_made_in_postgresql_while_redis_did_not_answer_are_honoured_after(api, things, key, monkeypatch):
    idempotency = api.server.app[IDEMPOTENCY]
    redis, prefix = api.server.app[REDIS], api.server.app[SETTINGS].redis_prefix
    await redis.set(prefix + COMPLETE_SINCE, "0")  # Redis has held every claim for long
    unanswering = create_redis(f"redis://127.0.0.1:{free_port()}/0")
    with monkeypatch.context() as outage:
        for name, value in (("_redis", unanswering), ("_claim_script", unanswering.register_script(CLAIM))):
            outage.setattr(idempotency, name, value)
        first = await api.post("/api/v1/things", json={"n": 2}, headers=keyed(key, "k-outage"))
    await unanswering.aclose()
    assert first.status == 201
    again = await api.post("/api/v1/things", json={"n": 2}, headers=keyed(key, "k-outage"))
    assert again.status == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert things.calls == 1
    assert time.time() - float(await redis.get(prefix + COMPLETE_SINCE)) < 60


async def test_answers_that_come_together_are_stored_together_and_each_replays(api, things, key, identity):
    keys = [f"k-burst-{n}" for n in range(40)]
    firsts = await asyncio.gather(*(api.post("/api/v1/things", json={"n": k}, headers=keyed(key, k)) for k in keys))
    assert [response.status for response in firsts] == [201] * len(keys)
    agains = await asyncio.gather(*(api.post("/api/v1/things", json={"n": k}, headers=keyed(key, k)) for k in keys))
    for first, again in zip(firsts, agains, strict=True):
        assert again.headers["Idempotent-Replayed"] == "true" and await again.json() == await first.json()
    assert things.calls == len(keys)
    async with cursor(identity.pool) as cur:
        await cur.execute("SELECT count(*) AS n FROM idempotency_keys WHERE key LIKE 'k-burst-%' AND status = 201")
        assert (await cur.fetchone())["n"] == len(keys)


async def test_keys_live_in_postgresql_so_a_gateway_without_redis_replays(api, things, key, stack):
    first = await api.post("/api/v1/things", json={"n": 1}, headers=keyed(key, "k-9"))
    await api.server.app[IDEMPOTENCY].answers.drain()  # stored (a replica cut off from Redis sees no claim there)
    upstream = api.server.app[SETTINGS].upstreams["content"]
    without_redis = await stack.start_gateway(
        {"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", "CONTENT_URL": upstream}, routes=ROUTES
    )
    try:
        again = await without_redis.post("/api/v1/things", json={"n": 1}, headers=keyed(key, "k-9"))
        assert again.status == 201 and again.headers["Idempotent-Replayed"] == "true"
        assert await again.json() == await first.json()
    finally:
        await without_redis.close()
    assert things.calls == 1


async def test_the_purge_removes_keys_older_than_24_hours(api, key, identity):
    await api.post("/api/v1/things", json={}, headers=keyed(key, "old"))
    await api.post("/api/v1/things", json={}, headers=keyed(key, "new"))
    await api.server.app[IDEMPOTENCY].answers.drain()
    async with cursor(identity.pool) as cur:
        await cur.execute("UPDATE idempotency_keys SET created_at = created_at - interval '25 hours' WHERE key = 'old'")
    assert await api.server.app[IDEMPOTENCY].answers.purge() >= 1
    async with cursor(identity.pool) as cur:
        await cur.execute("SELECT key FROM idempotency_keys WHERE key IN ('old', 'new')")
        assert [row["key"] for row in await cur.fetchall()] == ["new"]
