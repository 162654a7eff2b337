"""Fixtures of the events tests: an organization with a key, and webhook receivers on loopback."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from standardwebhooks import Webhook

from tests.answer_shapes import assert_event_shape
from tests.conftest import Client, Stack
from tests.factories import IdentityFactory, Org, eventually


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)


@dataclass
class Receiver:
    """An HTTP server recording what it is sent; answers `status` after `delay` seconds."""

    server: TestServer | None = None
    received: list[Received] = field(default_factory=list)
    status: int = 204
    delay: float = 0.0
    answer: bytes = b""
    # Holds every request unanswered until released (a receiver that hangs).
    hold: bool = False
    released: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        assert self.server is not None
        return str(self.server.make_url("/hook"))

    async def handle(self, request: web.Request) -> web.Response:
        self.received.append(Received(dict(request.headers), await request.read()))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.hold:
            await self.released.wait()
        return web.Response(status=self.status, body=self.answer)

    async def deliveries(self, count: int, within: float = 20.0) -> list[Received]:
        async def arrived() -> bool:
            return len(self.received) >= count

        await eventually(arrived, within)
        return self.received

    def verified(self, secret: str, index: int = -1) -> Any:
        """The payload of a received delivery, verified by the standardwebhooks package and checked
        against its type's declared shape."""
        got = self.received[index]
        payload = Webhook(secret).verify(got.body, got.headers)
        assert_event_shape(payload)
        return payload


@pytest.fixture
async def receivers() -> AsyncIterator[list[Receiver]]:
    made: list[Receiver] = []
    yield made
    for receiver in made:
        receiver.released.set()
        if receiver.server is not None:
            await receiver.server.close()


async def moved(request: web.Request) -> web.Response:
    raise web.HTTPFound("/hook")


async def start_receiver(made: list[Receiver], **settings: Any) -> Receiver:
    receiver = Receiver(**settings)
    app = web.Application()
    app.router.add_post("/hook", receiver.handle)
    app.router.add_post("/moved", moved)
    receiver.server = TestServer(app, host="127.0.0.1")
    await receiver.server.start_server()
    made.append(receiver)
    return receiver


@dataclass
class Tenant:
    org: Org
    key: str
    gateway: Client
    product: dict[str, Any]

    async def call(
        self, method: str, path: str, key: str | None = None, headers: dict[str, str] | None = None, **kwargs: Any
    ) -> tuple[int, Any]:
        headers = {"x-api-key": key or self.key, **(headers or {})}
        async with self.gateway.request(method, path, headers=headers, **kwargs) as answer:
            return answer.status, await answer.json()

    async def endpoint(self, url: str, events: list[str] | None = None) -> dict[str, Any]:
        status, answer = await self.call(
            "POST", "/api/v1/webhook-endpoints", json={"url": url, "events": events or ["*"]}
        )
        assert status == 201, answer
        endpoint: dict[str, Any] = answer["data"]
        return endpoint


@pytest.fixture
async def tenant(stack: Stack, identity: IdentityFactory) -> Tenant:
    org = await identity.organization()
    product = await identity.product(org)
    return Tenant(org, await identity.api_key(org), stack.gateway, product)
