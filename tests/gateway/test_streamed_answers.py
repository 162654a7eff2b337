"""Routes whose service streams a long answer: the gateway passes it on as it arrives, inside the envelope."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from functools import partial

import aiohttp
import pytest
from aiohttp import web

from gateway import contract as gateway_contract
from libs.common.encoding import streamed_json_response
from libs.contract.route import Route
from tests.factories import IdentityFactory
from tests.fakes import fixed_upstream

TIMEOUT = 0.5
ROUTES = (
    *gateway_contract.ROUTES,
    partial(Route, tag="Content")(
        "GET", "/api/v1/stream", "content", "content:read", "stream", "Stream", streamed=True, timeout=TIMEOUT
    ),
)
Pieces = Callable[[], AsyncIterator[bytes]]


def streaming_upstream(pieces: Pieces) -> web.Application:
    """Answers every request with `pieces()`, streamed as a service streams a long list."""

    async def stream(request: web.Request) -> web.Response:
        return streamed_json_response(pieces())

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", stream)
    return app


@pytest.fixture
def gateway_to(gateway_to, identity: IdentityFactory) -> Callable:
    """The gateway of tests/gateway/conftest.py, with the headers of an API key of every scope."""

    async def start(upstream: web.Application):
        headers = {"x-api-key": await identity.api_key(await identity.organization())}
        return await gateway_to(upstream), headers

    return start


async def test_pieces_reach_the_client_in_the_envelope_before_the_service_has_finished(gateway_to):
    finish = asyncio.Event()

    async def pieces() -> AsyncIterator[bytes]:
        yield b'{"items":[1,'
        await finish.wait()
        yield b"2]}"

    client, headers = await gateway_to(streaming_upstream(pieces))
    response = await client.get("/api/v1/stream", headers=headers)
    assert response.status == 200
    assert "Content-Length" not in response.headers
    assert (response.headers["Transfer-Encoding"], response.headers["Content-Type"]) == ("chunked", "application/json")
    assert "RateLimit-Remaining" in response.headers and "X-Request-Id" in response.headers
    started = b'{"ok":true,"data":{"items":[1,'
    assert await response.content.readexactly(len(started)) == started
    finish.set()
    assert json.loads(started + await response.read()) == {"ok": True, "data": {"items": [1, 2]}}


async def test_pauses_shorter_than_the_timeout_do_not_end_an_answer_longer_than_it(gateway_to):
    async def pieces() -> AsyncIterator[bytes]:
        yield b"["
        for index in range(4):
            await asyncio.sleep(TIMEOUT / 2)
            yield b"%d," % index
        yield b"4]"

    client, headers = await gateway_to(streaming_upstream(pieces))
    response = await client.get("/api/v1/stream", headers=headers)
    assert await response.json() == {"ok": True, "data": [0, 1, 2, 3, 4]}


async def test_a_service_breaking_off_breaks_the_answer_off(gateway_to):
    async def pieces() -> AsyncIterator[bytes]:
        yield b"[1,"
        raise RuntimeError("the service lost its database")

    client, headers = await gateway_to(streaming_upstream(pieces))
    response = await client.get("/api/v1/stream", headers=headers)
    assert response.status == 200
    with pytest.raises(aiohttp.ClientPayloadError):
        await response.read()


async def test_a_pause_longer_than_the_timeout_breaks_the_answer_off(gateway_to):
    async def pieces() -> AsyncIterator[bytes]:
        yield b"[1,"
        await asyncio.sleep(TIMEOUT * 4)
        yield b"2]"

    client, headers = await gateway_to(streaming_upstream(pieces))
    response = await client.get("/api/v1/stream", headers=headers)
    with pytest.raises(aiohttp.ClientPayloadError):
        await response.read()


@pytest.mark.parametrize(
    ("status", "body", "content_type", "expected"),
    [
        (200, b'{"small":true}', "application/json", (200, {"ok": True, "data": {"small": True}})),
        (
            409,
            b'{"code":"CONFLICT","message":"taken"}',
            "application/json",
            (409, {"ok": False, "code": "CONFLICT", "message": "taken"}),
        ),
        (
            200,
            b"<html>ok</html>",
            "text/html",
            (502, {"ok": False, "code": "BAD_GATEWAY", "message": "upstream answered with a body that is not JSON"}),
        ),
    ],
)
async def test_answers_read_whole_are_enveloped_as_on_any_route(gateway_to, status, body, content_type, expected):
    client, headers = await gateway_to(fixed_upstream(status, body, content_type))
    response = await client.get("/api/v1/stream", headers=headers)
    assert (response.status, await response.json()) == expected
    assert response.headers.get("Content-Length") == str(len(await response.read()))


async def test_a_streamed_body_that_is_not_json_is_a_bad_gateway(gateway_to):
    async def pieces() -> AsyncIterator[bytes]:
        yield b"<html>"

    async def html(request: web.Request) -> web.Response:
        response = streamed_json_response(pieces())
        response.content_type = "text/html"
        return response

    upstream = web.Application()
    upstream.router.add_get("/api/v1/stream", html)
    client, headers = await gateway_to(upstream)
    response = await client.get("/api/v1/stream", headers=headers)
    assert (response.status, (await response.json())["code"]) == (502, "BAD_GATEWAY")
