"""What an App does not serve itself goes to its domain's origin, and only there; an origin on an
internal address is refused unless a setting allows its network. Every answered request is
recorded in the request log."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis
from aiohttp import web

from libs.common.events import edge_requests_stream
from tests.conftest import REDIS_URL, Stack
from tests.edge.conftest import Apps, Edge
from tests.factories import eventually


def origin_app() -> web.Application:
    """An origin that echoes what reached it, and streams a long answer."""

    async def echo(request: web.Request) -> web.Response:
        body = (await request.read()).decode()
        return web.json_response(
            {"method": request.method, "path": request.raw_path, "headers": dict(request.headers), "body": body},
            headers={"X-Origin": "yes", "Connection": "close, X-Secret-Hop", "X-Secret-Hop": "hidden"},
        )

    async def stream(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        for index in range(100):
            await response.write(f"line {index}\n".encode())
        await response.write_eof()
        return response

    async def moved(request: web.Request) -> web.Response:
        raise web.HTTPFound("/elsewhere")

    app = web.Application()
    app.router.add_get("/stream", stream)
    app.router.add_get("/moved", moved)
    app.router.add_route("*", "/{tail:.*}", echo)
    return app


@pytest.fixture
async def origin(aiohttp_server: Any) -> str:
    """The origin, on the one internal address the tests' edge may reach (EDGE_ORIGIN_ALLOWED_NETWORKS)."""
    server = await aiohttp_server(origin_app(), host="127.0.0.2")
    return f"http://127.0.0.2:{server.port}"


async def test_unrouted_paths_go_to_the_origin_with_method_body_and_forwarding_headers(
    edge: Edge, apps: Apps, origin: str
):
    app = await apps.new()
    host = await app.domain(origin=origin)
    await app.page("/pricing", title="Pricing", content="ours")

    response = await edge.get(
        host,
        "/api/items%2F1?q=a%20b",
        {"X-Custom": "kept", "Connection": "keep-alive, X-Hop", "X-Hop": "dropped", "Content-Type": "application/json"},
        method="POST",
        data=b'{"name": "x"}',
    )

    assert response.status == 200
    echoed = await response.json()
    assert echoed["method"] == "POST" and echoed["path"] == "/api/items%2F1?q=a%20b"
    assert echoed["body"] == '{"name": "x"}'
    headers = {name.lower(): value for name, value in echoed["headers"].items()}
    assert headers["x-custom"] == "kept" and "x-hop" not in headers
    assert headers["host"] == origin.removeprefix("http://")  # the origin's own name
    assert headers["x-forwarded-host"] == host and headers["x-forwarded-proto"] == "http"
    assert headers["x-forwarded-for"] == "127.0.0.1"
    assert response.headers["X-Origin"] == "yes" and "X-Secret-Hop" not in response.headers
    routed = await edge.get(host, "/pricing.md")
    assert await routed.text() == "ours"  # what the App routes is the edge's own


async def test_the_origins_answer_is_streamed_and_redirects_are_passed_on(edge: Edge, apps: Apps, origin: str):
    app = await apps.new()
    host = await app.domain(origin=origin)

    streamed = await edge.get(host, "/stream")
    moved = await edge.get(host, "/moved")

    assert streamed.status == 200 and await streamed.text() == "".join(f"line {i}\n" for i in range(100))
    assert moved.status == 302 and moved.headers["Location"] == "/elsewhere"


async def test_without_an_origin_an_unrouted_path_is_the_404_page(edge: Edge, apps: Apps):
    app = await apps.new()

    response = await edge.get(app.hostname, "/anything")

    assert response.status == 404 and response.headers["Content-Type"] == "text/html; charset=utf-8"


@pytest.mark.parametrize(
    "internal",
    [
        "http://127.0.0.1:{port}",
        "http://localhost:{port}",
        "http://[::1]:{port}",
        "http://10.0.0.1:{port}",
        "http://169.254.169.254:{port}",
        "http://[::ffff:127.0.0.1]:{port}",
    ],
)
async def test_an_origin_at_an_internal_address_is_refused(edge: Edge, apps: Apps, origin: str, internal: str):
    app = await apps.new()
    port = origin.rsplit(":", 1)[1]
    host = await app.domain(origin=internal.format(port=port))

    response = await edge.get(host, "/anything")

    assert response.status == 502
    assert "origin" in await response.text()


async def test_every_answered_request_is_in_the_request_log(edge: Edge, apps: Apps, stack: Stack):
    app = await apps.new()
    await app.page("/signed", title="Signed", content="hello agents")
    headers = {
        "User-Agent": "ExampleBot/1.0",
        "Referer": "https://search.example/",
        "Signature": "sig1=:abc:",
        "Signature-Input": 'sig1=("@authority");keyid="k"',
        "Signature-Agent": '"https://bot.example"',
    }

    response = await edge.get(app.hostname, "/signed.md", headers)
    assert response.status == 200
    redis = aioredis.Redis.from_url(REDIS_URL)
    stream = edge_requests_stream(stack.environ["REDIS_PREFIX"])
    try:

        async def logged() -> list[dict[bytes, bytes]]:
            entries = await redis.xrange(stream)
            return [fields for _, fields in entries if fields.get(b"appId") == app.id.encode()]

        await eventually(logged, within=5)
        (entry,) = await logged()
    finally:
        await redis.aclose()
    fields = {key.decode(): value.decode() for key, value in entry.items()}
    assert fields["host"] == app.hostname and fields["path"] == "/signed.md" and fields["method"] == "GET"
    assert fields["status"] == "200" and fields["bytes"] == str(len("hello agents"))
    assert fields["userAgent"] == "ExampleBot/1.0" and fields["referer"] == "https://search.example/"
    assert fields["signature"] == "sig1=:abc:" and fields["signatureAgent"] == '"https://bot.example"'
    assert fields["signatureInput"] == 'sig1=("@authority");keyid="k"'
    assert fields["ip"] == "127.0.0.1" and float(fields["durationMs"]) >= 0
    assert fields["organizationId"] == app.org.id and fields["domainId"]
    assert fields["occurredAt"].endswith("Z")
