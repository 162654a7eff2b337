"""Every answer carries its real status (in the metrics too), its X-Request-Id and the security
headers: JSON answers of the API, the dashboard's pages, and redirects raised by handlers."""

from __future__ import annotations

from prometheus_client import REGISTRY

from tests.conftest import Stack
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


def answered(route: str, status: int) -> float:
    labels = {"service": "gateway", "method": "GET", "route": route, "status": str(status)}
    return REGISTRY.get_sample_value("http_requests_total", labels) or 0.0


def assert_secured(headers) -> None:
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-store"
    assert len(headers["X-Request-Id"]) >= 1


async def test_a_redirect_is_counted_as_one_and_carries_the_headers(stack: Stack):
    before_303, before_500 = answered("/", 303), answered("/", 500)
    response = await stack.gateway.get("/", allow_redirects=False, headers={"X-Request-Id": "redirect-1"})
    assert (response.status, response.headers["Location"]) == (303, "/login?next=/")
    assert_secured(response.headers)
    assert response.headers["X-Request-Id"] == "redirect-1"
    assert "Strict-Transport-Security" not in response.headers  # plain HTTP, no https PUBLIC_URL
    assert answered("/", 303) - before_303 == 1
    assert answered("/", 500) == before_500


async def test_api_answers_and_errors_carry_the_headers(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    for headers, status in (({"x-api-key": key}, 200), ({}, 401)):
        response = await stack.gateway.get(RUNS, headers=headers)
        assert response.status == status
        assert response.content_type == "application/json"
        assert_secured(response.headers)


async def test_strict_transport_security_when_reached_over_https(stack: Stack, identity: IdentityFactory):
    gateway = await stack.start_gateway({"ENVIRONMENT": "production", "PUBLIC_URL": "https://api.example.com"})
    try:
        for path in ("/login", RUNS, "/"):
            response = await gateway.get(path, allow_redirects=False)
            assert response.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
            assert_secured(response.headers)
        # A handler's own caching policy stands: the OAuth metadata is public for five minutes.
        metadata = await gateway.get("/.well-known/oauth-authorization-server")
        assert metadata.headers["Cache-Control"] == "public, max-age=300"
    finally:
        await gateway.close()
