"""Rate limits per credential: local decisions, shared through Redis, surviving its loss."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from gateway.edge.ratelimit import RateLimiter
from gateway.state import LIMITER
from libs.common.redis_client import WatchedConnection, create_redis
from libs.local.ports import free_port
from tests.conftest import REDIS_URL, metrics_text
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


@pytest.fixture
async def limited(stack):
    client = await stack.start_gateway({"RATE_LIMIT_BURST": "3", "RATE_LIMIT_PER_MINUTE": "6"})
    yield client
    await client.close()


async def test_the_burst_is_admitted_then_429_with_retry_after(limited, identity: IdentityFactory):
    org = await identity.organization()
    headers = {"x-api-key": await identity.api_key(org)}
    remaining = []
    for _ in range(3):
        response = await limited.get(RUNS, headers=headers)
        assert response.status == 200
        assert response.headers["RateLimit-Limit"] == "3"
        remaining.append(response.headers["RateLimit-Remaining"])
    assert remaining == ["2", "1", "0"]
    refused = await limited.get(RUNS, headers=headers)
    assert refused.status == 429
    body = await refused.json()
    assert body["ok"] is False
    assert body["code"] == "RATE_LIMITED"
    assert refused.headers["Retry-After"] == "10"  # one token at 6 a minute
    assert refused.headers["RateLimit-Remaining"] == "0"
    assert int(refused.headers["RateLimit-Reset"]) > 0


async def test_each_credential_has_its_own_bucket(limited, identity: IdentityFactory):
    org = await identity.organization()
    first, second = await identity.api_key(org), await identity.api_key(org)
    for _ in range(3):
        await limited.get(RUNS, headers={"x-api-key": first})
    assert (await limited.get(RUNS, headers={"x-api-key": first})).status == 429
    assert (await limited.get(RUNS, headers={"x-api-key": second})).status == 200


async def test_tokens_come_back_at_the_configured_rate():
    now = [0.0]
    limiter = RateLimiter(per_minute=60, burst=2, clock=lambda: now[0])
    assert limiter.take("k").allowed and limiter.take("k").allowed
    assert not limiter.take("k").allowed
    now[0] += 1.0
    assert limiter.take("k").allowed
    assert not limiter.take("k").allowed


async def test_replicas_share_a_bucket_through_redis():
    redis = create_redis(REDIS_URL)
    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    first = RateLimiter(per_minute=6, burst=3, redis=redis, prefix=prefix)
    second = RateLimiter(per_minute=6, burst=3, redis=redis, prefix=prefix)
    try:
        for _ in range(3):
            assert first.take("key").allowed
        await first.sync()
        assert second.take("key").allowed  # decided locally, before the replica has heard
        await second.sync()  # now it learns the shared bucket is spent
        decision = second.take("key")
        assert not decision.allowed
        assert decision.retry_after_seconds >= 10
    finally:
        await redis.aclose()


async def test_with_redis_down_requests_pass_and_are_counted(stack, identity: IdentityFactory):
    client = await stack.start_gateway({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    try:
        org = await identity.organization()
        headers = {"x-api-key": await identity.api_key(org)}
        for _ in range(3):
            assert (await client.get(RUNS, headers=headers)).status == 200
        await client.app[LIMITER].sync()
        metrics = metrics_text()
        counted = [
            line for line in metrics.splitlines() if line.startswith("gateway_ratelimit_local_only_requests_total ")
        ]
        assert counted and float(counted[0].split()[1]) >= 3
    finally:
        await client.close()


async def test_with_redis_down_the_limit_is_still_enforced_per_replica():
    redis = create_redis(f"redis://127.0.0.1:{free_port()}/0")
    limiter = RateLimiter(per_minute=6, burst=2, redis=redis, prefix="x:")
    try:
        assert limiter.take("k").allowed and limiter.take("k").allowed
        await limiter.sync()
        assert not limiter.take("k").allowed
    finally:
        await redis.aclose()


async def test_with_redis_down_the_sync_is_tried_less_and_less_often(monkeypatch):
    port = free_port()
    redis = create_redis(f"redis://127.0.0.1:{port}/0")
    limiter = RateLimiter(per_minute=600, burst=100, redis=redis, prefix="x:")
    tried = 0
    connect = WatchedConnection.connect

    async def counted(self: WatchedConnection) -> None:
        nonlocal tried
        tried += self.port == port  # this limiter's, not another client's of the process
        await connect(self)

    monkeypatch.setattr(WatchedConnection, "connect", counted)
    try:
        deadline = asyncio.get_running_loop().time() + 1.5
        while asyncio.get_running_loop().time() < deadline:  # the sync loop at 40 rounds a second
            limiter.take("k")
            await limiter.sync()
            await asyncio.sleep(0.025)
        assert limiter.take("k").allowed  # still enforced here
        assert 1 <= tried <= 10, tried  # 0.1 s, doubling: not one connection attempt a round (60)
    finally:
        await redis.aclose()
