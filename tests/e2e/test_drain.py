"""Stopping a gateway under load fails no request: two gateway processes behind a local
round-robin balancer, one of them sent SIGTERM halfway through a bounded load."""

from __future__ import annotations

import asyncio
import itertools
import signal
import uuid

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from libs.contract.parts import GATEWAY
from libs.local.ports import free_port
from libs.local.processes import Running, start, stop, wait_ready
from libs.local.stores import DATA
from tests.e2e.conftest import LiveStack

REQUESTS = 600
CONCURRENCY = 8
STOP_AFTER = 200
PATH = "/api/v1/agent-simulation/runs?limit=5"


class RoundRobin:
    """What a load balancer does: each request to the next backend; a backend that refuses the
    connection (it stopped listening) is skipped, as nothing was sent to it yet."""

    def __init__(self, backends: list[str]) -> None:
        self.backends = backends
        self.turn = itertools.cycle(range(len(backends)))
        self.served: list[str] = []

    async def forward(self, request: web.Request) -> web.Response:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session:
            first = next(self.turn)
            for offset in range(len(self.backends)):
                backend = self.backends[(first + offset) % len(self.backends)]
                try:
                    async with session.get(backend + request.path_qs, headers=request.headers) as answer:
                        body = await answer.read()
                        self.served.append(backend)
                        return web.Response(status=answer.status, body=body)
                except aiohttp.ClientConnectorError:
                    continue
        return web.Response(status=503, text="no backend")


def start_gateway(stack: LiveStack, output) -> tuple[str, list[Running]]:
    ports = {name: int(url.rpartition(":")[2]) for name, url in stack.urls.items()}
    port = free_port()
    running = start([GATEWAY], stack.environ, {**ports, GATEWAY.name: port}, output, {GATEWAY.name: free_port()})
    return f"http://127.0.0.1:{port}", running


async def test_a_gateway_stopped_under_load_fails_no_request(live_stack: LiveStack):
    with open(DATA / f"e2e-drain-{uuid.uuid4().hex[:8]}.log", "wb") as output:
        first_url, first = start_gateway(live_stack, output)
        second_url, second = start_gateway(live_stack, output)
        balancer = RoundRobin([first_url, second_url])
        app = web.Application()
        app.router.add_get("/{tail:.*}", balancer.forward)
        server = TestServer(app)
        try:
            wait_ready(first + second)
            await server.start_server()
            outcomes: list[int | str] = []
            stopped = asyncio.Event()
            counter = itertools.count()

            async def client() -> None:
                async with aiohttp.ClientSession(headers={"x-api-key": live_stack.api_key}) as session:
                    while (number := next(counter)) < REQUESTS:
                        if number == STOP_AFTER:
                            first[0].process.send_signal(signal.SIGTERM)
                            stopped.set()
                        try:
                            async with session.get(f"http://{server.host}:{server.port}{PATH}") as response:
                                await response.read()
                                outcomes.append(
                                    response.status
                                    if response.status == 200
                                    else f"{response.status} {await response.text()}"
                                )
                        except aiohttp.ClientError as error:
                            outcomes.append(repr(error))

            await asyncio.gather(*(client() for _ in range(CONCURRENCY)))
            assert stopped.is_set()
            assert len(outcomes) == REQUESTS
            assert [outcome for outcome in outcomes if outcome != 200] == []
            exit_code = await asyncio.to_thread(first[0].process.wait, 30)
            assert exit_code == 0  # a graceful stop, not a kill
            # Both served before the stop; once the first has gone, only the second.
            assert {first_url, second_url} <= set(balancer.served[:STOP_AFTER])
            served_before = len(balancer.served)
            async with aiohttp.ClientSession(headers={"x-api-key": live_stack.api_key}) as session:
                for _ in range(10):
                    async with session.get(f"http://{server.host}:{server.port}{PATH}") as response:
                        assert response.status == 200
            assert set(balancer.served[served_before:]) == {second_url}
        finally:
            await server.close()
            stop(first + second)
