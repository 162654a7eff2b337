"""Fixtures of the gateway's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from tests.conftest import Client, Stack

Browser = Callable[[], Awaitable[Client]]


@pytest.fixture
async def gateway_to(stack, request) -> AsyncIterator[Callable]:
    """Start a gateway of the test module's ROUTES whose `content` upstream is the given fake
    application; returns its client."""
    started = []

    async def start(upstream: web.Application):
        server = TestServer(upstream)
        await server.start_server()
        content_url = str(server.make_url("")).rstrip("/")
        client = await stack.start_gateway({"CONTENT_URL": content_url}, routes=request.module.ROUTES)
        started.append((server, client))
        return client

    yield start
    for server, client in started:
        await client.close()
        await server.close()


@pytest.fixture
async def browser(stack: Stack) -> AsyncIterator[Browser]:
    """Another browser (its own cookies) on the stack's gateway."""
    opened: list[Client] = []

    async def open_one() -> Client:
        client: Client = TestClient(stack.gateway.server)
        await client.start_server()  # the server is running already: only a new session
        opened.append(client)
        return client

    yield open_one
    for client in opened:
        await client.session.close()
