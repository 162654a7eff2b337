"""Refused credentials are bounded: unknown keys are remembered, and an address sending too many
bad credentials is refused with 429 before any lookup."""

from __future__ import annotations

import secrets
import uuid

from prometheus_client import REGISTRY

from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


def metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def random_key() -> str:
    return f"avk_{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}"


async def test_an_address_sending_bad_credentials_is_limited_but_its_valid_keys_are_not(
    stack, identity: IdentityFactory
):
    org = await identity.organization()
    key = await identity.api_key(org)
    prefix = f"test-{uuid.uuid4().hex[:8]}:"  # a bucket of its own
    gateway = await stack.start_gateway(
        {"FAILED_CREDENTIALS_BURST": "5", "FAILED_CREDENTIALS_PER_MINUTE": "6", "REDIS_PREFIX": prefix}
    )
    try:
        limited_before = metric("gateway_auth_failed_limited_total")
        for _ in range(5):
            assert (await gateway.get(RUNS, headers={"x-api-key": random_key()})).status == 401
        for headers in ({"x-api-key": random_key()}, {"Authorization": "Bearer forged"}):
            response = await gateway.get(RUNS, headers=headers)
            assert response.status == 429
            assert int(response.headers["Retry-After"]) >= 1
            body = await response.json()
            assert body["code"] == "RATE_LIMITED"
            assert body["message"] == "too many failed credentials from this address"
        assert metric("gateway_auth_failed_limited_total") - limited_before == 2
        # A neighbour behind the same address with a valid key is not refused for others' failures.
        assert (await gateway.get(RUNS, headers={"x-api-key": key})).status == 200
        # No credential at all costs no lookup and is not limited: a plain 401 still.
        assert (await gateway.get(RUNS)).status == 401
    finally:
        await gateway.close()


async def test_the_failure_limit_is_exact_across_replicas(stack):
    """Counted in the shared store: two replicas together refuse the 11th failure, not each its own 11th."""
    settings = {
        "FAILED_CREDENTIALS_BURST": "10",
        "FAILED_CREDENTIALS_PER_MINUTE": "1",
        "REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}:",  # a bucket of its own, away from other tests
    }
    first, second = await stack.start_gateway(settings), await stack.start_gateway(settings)
    try:
        statuses = [
            (await replica.get(RUNS, headers={"x-api-key": random_key()})).status
            for _ in range(6)
            for replica in (first, second)
        ]
        assert statuses == [401] * 10 + [429] * 2
    finally:
        await first.close()
        await second.close()


async def test_an_unknown_key_is_refused_from_memory_the_second_time(gateway):
    key = random_key()
    hits_before = metric("gateway_key_cache_lookups_total", result="negative_hit")
    for _ in range(3):
        response = await gateway.get(RUNS, headers={"x-api-key": key})
        assert response.status == 401
        assert (await response.json())["message"] == "invalid api key"
    assert metric("gateway_key_cache_lookups_total", result="negative_hit") - hits_before == 2
