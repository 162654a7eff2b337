"""An upstream worker dying under requests in flight: the gateway sends a read once more on a
fresh connection, and never a write."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator
from functools import partial

import pytest
from prometheus_client import REGISTRY

from gateway import contract as gateway_contract
from libs.contract.route import Route
from tests.factories import IdentityFactory

route = partial(Route, tag="Content")
ROUTES = (
    *gateway_contract.ROUTES,
    route("GET", "/api/v1/echo", "content", "content:read", "echo_get", "Echo"),
    route("POST", "/api/v1/echo/search", "content", "content:read", "echo_search", "Echo", read_only=True),
    route("POST", "/api/v1/echo", "content", "content:write", "echo_post", "Echo"),
    route("PUT", "/api/v1/echo", "content", "content:write", "echo_put", "Echo"),
    route("DELETE", "/api/v1/echo", "content", "content:write", "echo_delete", "Echo"),
)
IN_FLIGHT = 10


class DyingUpstream:
    """A raw HTTP server standing in for a service worker that is killed while requests are in
    flight: the first IN_FLIGHT requests are read, then every one of their connections is reset
    at once without an answer byte (what the kernel does to a killed process's sockets). Later
    connections are a healthy worker's: each is answered 200."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self._held: list[asyncio.StreamWriter] = []
        self._dead = asyncio.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                writer.close()
                return
            lines = head.split(b"\r\n")
            length = next((int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length")), 0)
            await reader.readexactly(length)
            self.requests.append(head.split(b" ")[0].decode())
            if not self._dead.is_set():
                self._held.append(writer)
                if len(self._held) == IN_FLIGHT:
                    self._die()
                return
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n")
            writer.write(b'{"a": true}')
            await writer.drain()

    def _die(self) -> None:
        for writer in self._held:
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = RST
            writer.transport.abort()
        self._dead.set()


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[DyingUpstream, str]]:
    state = DyingUpstream()
    server = await asyncio.start_server(state.handle, "127.0.0.1", 0)
    yield state, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    server.close()


@pytest.fixture
async def gateway_to_dying(stack, upstream):
    state, url = upstream
    client = await stack.start_gateway({"CONTENT_URL": url}, routes=ROUTES)
    yield state, client
    await client.close()


def retries(route_path: str) -> float:
    samples = [
        sample.value
        for metric in REGISTRY.collect()
        if metric.name == "upstream_retries"
        for sample in metric.samples
        if sample.name == "upstream_retries_total" and sample.labels["route"] == route_path
    ]
    return sum(samples)


async def in_flight(client, key: str, method: str, path: str) -> list[tuple[int, dict]]:
    async def one() -> tuple[int, dict]:
        response = await client.request(method, path, headers={"x-api-key": key}, json={"query": "x"})
        return response.status, await response.json()

    return await asyncio.gather(*(one() for _ in range(IN_FLIGHT)))


@pytest.mark.parametrize(("method", "path"), [("POST", "/api/v1/echo/search"), ("GET", "/api/v1/echo")])
async def test_reads_in_flight_when_a_worker_dies_are_sent_again_and_answered(
    gateway_to_dying, identity: IdentityFactory, method, path
):
    state, client = gateway_to_dying
    key = await identity.api_key(await identity.organization())
    before = retries(path)
    answers = await in_flight(client, key, method, path)
    assert answers == [(200, {"ok": True, "data": {"a": True}})] * IN_FLIGHT
    assert state.requests == [method] * (2 * IN_FLIGHT)  # each read sent once more, and only once
    assert retries(path) - before == IN_FLIGHT


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_writes_in_flight_when_a_worker_dies_are_never_sent_again(
    gateway_to_dying, identity: IdentityFactory, method
):
    state, client = gateway_to_dying
    key = await identity.api_key(await identity.organization())
    before = retries("/api/v1/echo")
    answers = await in_flight(client, key, method, "/api/v1/echo")
    assert [status for status, _ in answers] == [502] * IN_FLIGHT
    assert {body["code"] for _, body in answers} == {"BAD_GATEWAY"}
    assert state.requests == [method] * IN_FLIGHT
    assert retries("/api/v1/echo") == before
