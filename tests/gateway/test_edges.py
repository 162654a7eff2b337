"""What the gateway decides on its own: unknown routes, methods, sizes, lifecycle, health."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime

import aiohttp
from prometheus_client import REGISTRY

from gateway.edge.route_table import LEGACY_ROUTING_SUNSET
from libs.common.internal_token import HEADER, Organization, mint, service_caller
from tests.conftest import metrics_text
from tests.factories import IdentityFactory


async def test_unknown_path_is_a_404_envelope(gateway):
    response = await gateway.get("/api/v1/nothing-here")
    assert response.status == 404
    assert await response.json() == {"ok": False, "code": "NOT_FOUND", "message": "no such route"}


async def test_wrong_method_is_a_405_envelope_with_allow(gateway):
    response = await gateway.delete("/api/v1/agent-simulation/runs")
    assert response.status == 405
    body = await response.json()
    assert body["code"] == "METHOD_NOT_ALLOWED"
    assert body["ok"] is False
    assert "GET" in response.headers["Allow"]


async def test_body_over_the_limit_is_a_413_envelope(gateway, identity: IdentityFactory):
    org = await identity.organization()
    body = b'{"productId": "x", "pages": ["' + b"a" * (1024 * 1024) + b'"]}'
    response = await gateway.post(
        "/api/v1/site/pages",
        data=io.BytesIO(body),
        headers={"x-api-key": await identity.api_key(org), "Content-Type": "application/json"},
    )
    assert response.status == 413
    assert (await response.json())["code"] == "PAYLOAD_TOO_LARGE"


async def test_deprecated_operations_announce_their_successor(gateway, identity: IdentityFactory):
    org = await identity.organization()
    response = await gateway.post("/api/v1/site/pages", json={}, headers={"x-api-key": await identity.api_key(org)})
    assert response.headers["Deprecation"] == "@1793491200"  # 2026-11-01T00:00:00Z
    assert response.headers["Link"] == '</api/v1/apps>; rel="successor-version"'


async def test_legacy_routing_announces_its_sunset_before_it(gateway, identity: IdentityFactory):
    org = await identity.organization()
    response = await gateway.get(
        f"/api/v1/domain/{uuid.uuid4()}/routing", headers={"x-api-key": await identity.api_key(org)}
    )
    assert response.headers["Sunset"] == "Tue, 15 Dec 2026 23:59:59 GMT"
    assert response.headers["Deprecation"] == "@1793491200"
    assert response.status != 410


async def test_legacy_routing_is_gone_after_its_sunset(stack):
    after = stack.start_gateway(clock=lambda: datetime(2026, 12, 16, tzinfo=UTC))
    client = await after
    try:
        response = await client.get(f"/api/v1/domain/{uuid.uuid4()}/routing")
        assert response.status == 410
        assert await response.json() == {
            "ok": False,
            "code": "GONE",
            "message": "GET /api/v1/domain/{id}/routing stopped responding on 2026-12-15",
        }
        assert response.headers["Sunset"] == "Tue, 15 Dec 2026 23:59:59 GMT"
    finally:
        await client.close()


async def test_legacy_routing_still_answers_at_the_last_second(stack):
    client = await stack.start_gateway(clock=lambda: LEGACY_ROUTING_SUNSET)
    try:
        response = await client.get(f"/api/v1/domain/{uuid.uuid4()}/routing")
        assert response.status == 401  # still in service: credentials are checked
    finally:
        await client.close()


async def test_health_and_readiness(gateway):
    assert (await gateway.get("/healthz")).status == 200
    response = await gateway.get("/readyz")
    assert response.status == 200
    assert await response.json() == {"status": "ready", "checks": {"database": "ok", "redis": "ok"}}


async def test_still_ready_when_redis_is_down_and_the_outage_is_counted(stack):
    """Every use of Redis has a fallback: an outage must not take the whole API out of service."""
    from libs.local.ports import free_port

    before = REGISTRY.get_sample_value("redis_errors_total", {"operation": "readiness"}) or 0.0
    client = await stack.start_gateway({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    try:
        response = await client.get("/readyz")
        assert response.status == 200
        assert await response.json() == {"status": "ready", "checks": {"database": "ok", "redis": "degraded"}}
        assert REGISTRY.get_sample_value("redis_errors_total", {"operation": "readiness"}) == before + 1
    finally:
        await client.close()


async def test_metrics_count_requests_by_route(gateway):
    await gateway.get("/api/v1/agent-simulation/runs")
    assert (await gateway.get("/metrics")).status == 404  # served on a port of its own
    text = metrics_text()
    assert (
        'http_requests_total{method="GET",route="/api/v1/agent-simulation/runs",service="gateway",status="401"}' in text
    )


async def test_services_have_no_endpoint_to_call_back_into_the_gateway(gateway, identity: IdentityFactory, stack):
    """Services learn of products from the gateway's events; no request goes back into the gateway."""
    org = await identity.organization()
    caller = service_caller("apps", Organization(org.id, org.slug, org.name))
    headers = {HEADER: mint(stack.environ["INTERNAL_TOKEN_SECRET"], caller)}
    response = await gateway.post("/internal/products/lookup", json={"ids": []}, headers=headers)
    assert response.status == 404


async def test_a_session_redis_cannot_read_is_signed_out_and_keys_still_work(stack, identity: IdentityFactory):
    from libs.local.ports import free_port

    org = await identity.organization()
    cookie = await identity.session(await identity.user(org), org)
    client = await stack.start_gateway({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    try:
        response = await client.get("/api/v1/agent-simulation/runs", cookies={"app-auth.session_token": cookie})
        assert response.status == 401  # served signed out, never a 503 for everyone
        assert (await response.json())["code"] == "UNAUTHORIZED"
        key_response = await client.get(
            "/api/v1/agent-simulation/runs", headers={"x-api-key": await identity.api_key(org)}
        )
        assert key_response.status == 200  # API keys never needed Redis
    finally:
        await client.close()


async def test_request_ids_are_echoed_when_well_formed(gateway):
    response = await gateway.get("/healthz", headers={"X-Request-Id": "abc-123"})
    assert response.headers["X-Request-Id"] == "abc-123"
    for bad in ("has spaces", "x" * 65, "semi;colon"):
        response = await gateway.get("/healthz", headers={"X-Request-Id": bad})
        assert response.headers["X-Request-Id"] != bad
        assert len(response.headers["X-Request-Id"]) == 32


async def test_the_session_cookie_is_never_set_for_api_key_callers(gateway, identity: IdentityFactory):
    org = await identity.organization()
    async with aiohttp.ClientSession() as session:
        url = gateway.make_url("/api/v1/agent-simulation/runs")
        async with session.get(url, headers={"x-api-key": await identity.api_key(org)}) as response:
            assert response.status == 200
            assert "Set-Cookie" not in response.headers
