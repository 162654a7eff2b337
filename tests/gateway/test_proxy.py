"""The proxy: what reaches a service, tenancy checks, and upstream failures as envelopes."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from functools import partial

import pytest

from gateway import contract as gateway_contract
from libs.common.internal_token import verify
from libs.contract.route import Route
from libs.local.ports import free_port
from tests.factories import IdentityFactory
from tests.fakes import echo_upstream, fixed_upstream, slow_upstream

# The gateway's own routes are part of every gateway; the echo routes go to a fake `content`.
echo_route = partial(Route, tag="Content")
ROUTES = (
    *gateway_contract.ROUTES,
    echo_route("GET", "/api/v1/echo", "content", "content:read", "echo", "Echo"),
    echo_route("POST", "/api/v1/echo", "content", "content:write", "echo_post", "Echo", product_body="productId"),
    echo_route(
        "GET",
        "/api/v1/products/{productId}/echo",
        "content",
        "content:read",
        "echo_p",
        "Echo",
        product_param="productId",
    ),
    echo_route("GET", "/api/v1/orgs/{orgId}/echo", "content", "content:read", "echo_o", "Echo", org_param="orgId"),
    echo_route("GET", "/api/v1/product-echo", "content", "content:read", "echo_q", "Echo", product_query="productId"),
    echo_route("GET", "/api/v1/slow", "content", "content:read", "slow", "Slow", timeout=0.3),
)


@pytest.fixture
async def echo(gateway_to, stack):
    return await gateway_to(echo_upstream(stack.environ["INTERNAL_TOKEN_SECRET"]))


async def test_only_allowlisted_headers_and_the_signed_identity_reach_the_service(echo, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    forged = {
        "X-Internal-Token": "forged",
        "X-Organization-Id": str(uuid.uuid4()),
        "X-Forwarded-User": "admin",
        "Cookie": "app-auth.session_token=abc",
        "Accept-Language": "fr",
    }
    response = await echo.get("/api/v1/echo?a=1", headers={"x-api-key": key, **forged})
    assert response.status == 200
    seen = (await response.json())["data"]
    assert seen["path"] == "/api/v1/echo"
    assert seen["query"] == {"a": "1"}
    received = {name.lower() for name in seen["headers"]}
    assert not received & {"x-api-key", "x-organization-id", "x-forwarded-user", "cookie", "authorization"}
    assert seen["headers"]["Accept-Language"] == "fr"
    assert seen["caller"]["kind"] == "api_key"
    assert seen["caller"]["organization"] == org.id
    assert seen["caller"]["requestId"] == response.headers["X-Request-Id"]


async def test_a_callers_token_is_reused_while_each_request_keeps_its_own_id(echo, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    seen = []
    for request_id in ("first-request", "second-request"):
        response = await echo.get("/api/v1/echo", headers={"x-api-key": key, "X-Request-Id": request_id})
        assert response.status == 200
        seen.append((await response.json())["data"])
    assert seen[0]["headers"]["X-Internal-Token"] == seen[1]["headers"]["X-Internal-Token"]
    assert [data["caller"]["requestId"] for data in seen] == ["first-request", "second-request"]
    other = await echo.get("/api/v1/echo", headers={"x-api-key": await identity.api_key(org)})
    assert (await other.json())["data"]["headers"]["X-Internal-Token"] != seen[0]["headers"]["X-Internal-Token"]


async def test_the_internal_token_expires_within_a_minute(echo, identity: IdentityFactory, stack):
    org = await identity.organization()
    response = await echo.get("/api/v1/echo", headers={"x-api-key": await identity.api_key(org)})
    token = (await response.json())["data"]["headers"]["X-Internal-Token"]
    verify(stack.environ["INTERNAL_TOKEN_SECRET"], token)
    import jwt

    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["exp"] - time.time() <= 60


async def test_only_allowlisted_upstream_headers_reach_the_client(echo, identity: IdentityFactory):
    org = await identity.organization()
    response = await echo.get("/api/v1/echo", headers={"x-api-key": await identity.api_key(org)})
    assert response.headers["Location"] == "/somewhere"
    assert "X-Upstream-Secret" not in response.headers


async def test_a_product_of_the_callers_organization_is_passed_on(echo, identity: IdentityFactory):
    org = await identity.organization()
    product = await identity.product(org)
    headers = {"x-api-key": await identity.api_key(org)}
    for response in (
        await echo.get(f"/api/v1/products/{product['id']}/echo", headers=headers),
        await echo.get("/api/v1/product-echo", params={"productId": product["id"]}, headers=headers),
        await echo.post("/api/v1/echo", json={"productId": product["id"], "x": 1}, headers=headers),
    ):
        assert response.status == 200
        assert (await response.json())["data"]["caller"]["product"] == product


@pytest.mark.parametrize("where", ["path", "query", "body"])
async def test_another_organizations_product_is_404(echo, identity: IdentityFactory, where):
    org, other = await identity.organization(), await identity.organization()
    theirs = await identity.product(other)
    headers = {"x-api-key": await identity.api_key(org)}
    if where == "path":
        response = await echo.get(f"/api/v1/products/{theirs['id']}/echo", headers=headers)
    elif where == "query":
        response = await echo.get("/api/v1/product-echo", params={"productId": theirs["id"]}, headers=headers)
    else:
        response = await echo.post("/api/v1/echo", json={"productId": theirs["id"]}, headers=headers)
    assert response.status == 404
    assert await response.json() == {"ok": False, "code": "NOT_FOUND", "message": "product not found"}


@pytest.mark.parametrize("product_id", ["not-a-uuid", pytest.param(str(uuid.uuid4()), id="unknown")])
async def test_unknown_or_malformed_product_is_404(echo, identity: IdentityFactory, product_id):
    org = await identity.organization()
    response = await echo.get(f"/api/v1/products/{product_id}/echo", headers={"x-api-key": await identity.api_key(org)})
    assert response.status == 404
    assert (await response.json())["code"] == "NOT_FOUND"


async def test_another_organization_in_the_path_is_404(echo, identity: IdentityFactory):
    org, other = await identity.organization(), await identity.organization()
    headers = {"x-api-key": await identity.api_key(org)}
    assert (await echo.get(f"/api/v1/orgs/{org.id}/echo", headers=headers)).status == 200
    response = await echo.get(f"/api/v1/orgs/{other.id}/echo", headers=headers)
    assert response.status == 404
    assert (await response.json())["message"] == "organization not found"


async def test_a_session_user_cannot_reach_another_organizations_product(echo, identity: IdentityFactory):
    org, other = await identity.organization(), await identity.organization()
    cookie = await identity.session(await identity.user(org), org)
    theirs = await identity.product(other)
    response = await echo.get(f"/api/v1/products/{theirs['id']}/echo", cookies={"app-auth.session_token": cookie})
    assert response.status == 404


async def test_a_viewer_session_cannot_write(echo, identity: IdentityFactory):
    org = await identity.organization()
    cookie = await identity.session(await identity.user(org, role="viewer"), org)
    response = await echo.post("/api/v1/echo", json={}, cookies={"app-auth.session_token": cookie})
    assert response.status == 403
    assert (await response.json())["details"] == {"requiredScope": "content:write"}


async def test_a_slow_upstream_is_504_within_the_route_timeout(gateway_to, identity: IdentityFactory):
    client = await gateway_to(slow_upstream(5.0))
    org = await identity.organization()
    started = time.monotonic()
    response = await client.get("/api/v1/slow", headers={"x-api-key": await identity.api_key(org)})
    elapsed = time.monotonic() - started
    assert response.status == 504
    assert await response.json() == {
        "ok": False,
        "code": "UPSTREAM_TIMEOUT",
        "message": "upstream did not answer within 0.3s",
    }
    assert elapsed < 2.0


async def test_a_refused_connection_is_502(stack, identity: IdentityFactory):
    client = await stack.start_gateway({"CONTENT_URL": f"http://127.0.0.1:{free_port()}"}, routes=ROUTES)
    org = await identity.organization()
    try:
        response = await client.get("/api/v1/echo", headers={"x-api-key": await identity.api_key(org)})
        assert response.status == 502
        assert await response.json() == {"ok": False, "code": "BAD_GATEWAY", "message": "upstream unreachable"}
    finally:
        await client.close()


@pytest.mark.parametrize(
    ("status", "body", "content_type", "expected"),
    [
        (503, b"starting", "text/plain", (503, "SERVICE_UNAVAILABLE")),
        (500, b"<html>boom</html>", "text/html", (502, "BAD_GATEWAY")),
        (200, b"<html>ok</html>", "text/html", (502, "BAD_GATEWAY")),
        (409, b'{"code":"CONFLICT","message":"taken","details":{"slug":"x"}}', "application/json", (409, "CONFLICT")),
    ],
)
async def test_upstream_answers_become_envelopes(
    gateway_to, identity: IdentityFactory, status, body, content_type, expected
):
    client = await gateway_to(fixed_upstream(status, body, content_type))
    org = await identity.organization()
    response = await client.get("/api/v1/echo", headers={"x-api-key": await identity.api_key(org)})
    payload = await response.json()
    assert (response.status, payload["code"]) == expected
    assert payload["ok"] is False
    if expected[1] == "CONFLICT":
        assert payload == {"ok": False, "code": "CONFLICT", "message": "taken", "details": {"slug": "x"}}


async def test_an_absolute_form_request_target_still_reaches_the_upstream_path(echo, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    reader, writer = await asyncio.open_connection(echo.host, echo.port)
    writer.write(
        f"GET http://elsewhere.example/api/v1/echo?a=%2F1 HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    await writer.drain()
    head, _, body = (await reader.read()).partition(b"\r\n\r\n")
    writer.close()
    assert head.startswith(b"HTTP/1.1 200")
    seen = json.loads(body)["data"]
    assert (seen["path"], seen["query"]) == ("/api/v1/echo", {"a": "/1"})
