"""Refused credentials are bounded: unknown keys are remembered, and an address sending too many
bad credentials is refused with 429 before any lookup."""

from __future__ import annotations

import secrets

from prometheus_client import REGISTRY

from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


def metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def random_key() -> str:
    return f"avk_{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}"


async def test_an_address_sending_bad_credentials_is_limited(stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    gateway = await stack.start_gateway({"FAILED_CREDENTIALS_BURST": "5", "FAILED_CREDENTIALS_PER_MINUTE": "6"})
    try:
        limited_before = metric("gateway_auth_failed_limited_total")
        assert (await gateway.get(RUNS, headers={"x-api-key": key})).status == 200  # spends nothing
        for _ in range(5):
            assert (await gateway.get(RUNS, headers={"x-api-key": random_key()})).status == 401
        for headers in ({"x-api-key": random_key()}, {"Authorization": "Bearer forged"}, {"x-api-key": key}):
            response = await gateway.get(RUNS, headers=headers)
            assert response.status == 429
            assert int(response.headers["Retry-After"]) >= 1
            body = await response.json()
            assert body["code"] == "RATE_LIMITED"
            assert body["message"] == "too many failed credentials from this address"
        assert metric("gateway_auth_failed_limited_total") - limited_before == 3
        # No credential at all costs no lookup and is not limited: a plain 401 still.
        assert (await gateway.get(RUNS)).status == 401
    finally:
        await gateway.close()


async def test_an_unknown_key_is_refused_from_memory_the_second_time(gateway):
    key = random_key()
    hits_before = metric("gateway_key_cache_lookups_total", result="negative_hit")
    for _ in range(3):
        response = await gateway.get(RUNS, headers={"x-api-key": key})
        assert response.status == 401
        assert (await response.json())["message"] == "invalid api key"
    assert metric("gateway_key_cache_lookups_total", result="negative_hit") - hits_before == 2
