"""The internal HTTP client: a timeout on every call, one retry only where a retry is safe."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from libs.common.errors import BadGateway, NotFound, ServiceUnavailable, UpstreamError, UpstreamTimeout
from libs.common.http_client import InternalClient, internal_client
from libs.common.internal_token import service_caller
from libs.local.ports import free_port

SECRET = "s" * 48


@pytest.fixture
async def client() -> AsyncIterator[InternalClient]:
    async with internal_client(SECRET) as client:
        yield client


class DropFirstConnection:
    """A raw server that closes its first connection without answering, then answers 200."""

    def __init__(self) -> None:
        self.connections = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await reader.readuntil(b"\r\n\r\n")
        if self.connections > 1:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            await writer.drain()
        writer.close()


@pytest.fixture
async def flaky() -> AsyncIterator[tuple[DropFirstConnection, str]]:
    server_state = DropFirstConnection()
    server = await asyncio.start_server(server_state.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield server_state, f"http://127.0.0.1:{port}/"
    server.close()
    await server.wait_closed()


async def test_an_idempotent_request_is_retried_once_after_a_dropped_connection(client, flaky):
    state, url = flaky
    response = await client.send("GET", url)
    assert response.status == 200
    assert state.connections == 2


async def test_a_post_is_never_retried(client, flaky):
    state, url = flaky
    with pytest.raises(BadGateway):
        await client.send("POST", url, body=b"{}")
    assert state.connections == 1


async def test_a_refused_connection_is_retried_once_then_a_502(client):
    started = time.monotonic()
    with pytest.raises(BadGateway, match="upstream unreachable"):
        await client.send("GET", f"http://127.0.0.1:{free_port()}/")
    assert time.monotonic() - started >= 0.05  # the one retry waited its delay


async def test_a_slow_answer_is_a_504_at_the_timeout(client):
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(2)
        return web.json_response({})

    app = web.Application()
    app.router.add_get("/", slow)
    async with TestServer(app) as server:
        started = time.monotonic()
        with pytest.raises(UpstreamTimeout):
            await client.send("GET", str(server.make_url("/")), timeout=0.2)
        assert time.monotonic() - started < 1.0


async def test_call_raises_the_error_the_service_answered(client):
    async def missing(request: web.Request) -> web.Response:
        return web.json_response({"code": "NOT_FOUND", "message": "no such app", "details": {"id": "x"}}, status=404)

    app = web.Application()
    app.router.add_get("/", missing)
    async with TestServer(app) as server:
        with pytest.raises(NotFound) as caught:
            await client.call("GET", str(server.make_url("/")), service_caller("test"))
    assert (caught.value.message, caught.value.details) == ("no such app", {"id": "x"})


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (503, b"", ServiceUnavailable),
        (504, b"<html>gateway timeout</html>", UpstreamTimeout),
        (500, b"", BadGateway),
        (404, b"not json", BadGateway),
    ],
)
async def test_an_answer_without_an_error_body_maps_as_at_the_gateway(client, status, body, expected):
    """Parts calling each other and the gateway share one mapping of upstream failures."""

    async def failing(request: web.Request) -> web.Response:
        return web.Response(status=status, body=body)

    app = web.Application()
    app.router.add_get("/", failing)
    async with TestServer(app) as server:
        with pytest.raises(expected):
            await client.call("GET", str(server.make_url("/")), service_caller("test"))


async def test_an_error_code_of_its_own_passes_with_its_status_and_code(client):
    async def locked(request: web.Request) -> web.Response:
        return web.json_response({"code": "LOCKED", "message": "try later"}, status=423)

    app = web.Application()
    app.router.add_get("/", locked)
    async with TestServer(app) as server:
        with pytest.raises(UpstreamError) as caught:
            await client.call("GET", str(server.make_url("/")), service_caller("test"))
    assert (caught.value.status, caught.value.code, caught.value.message) == (423, "LOCKED", "try later")
