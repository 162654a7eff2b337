"""What the HTTP layer refuses is answered as an envelope, over a real socket: a body that takes
too long (408), a request line or header the parser refuses (400) - never echoing what was sent."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from gateway.edge.server import GatewayRunner
from libs.contract.parts import GATEWAY
from tests.conftest import build_app
from tests.factories import IdentityFactory

SECRET = "avk_Secret12_" + "S" * 43


@pytest.fixture
async def address(stack) -> AsyncIterator[tuple[str, int]]:
    """A gateway served as gunicorn serves it (its own runner), with a one-second body timeout."""
    runner = GatewayRunner(build_app(GATEWAY, stack.part_environ(GATEWAY, BODY_TIMEOUT_SECONDS="1")))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield runner.addresses[0][:2]
    await runner.cleanup()


async def exchange(address: tuple[str, int], head: bytes, dribble: bytes = b"", every: float = 0.0):
    """Send `head`, then `dribble` a byte at a time; the status, headers and body of the answer,
    and the seconds until the server closed the connection."""
    reader, writer = await asyncio.open_connection(*address)
    started = time.monotonic()
    writer.write(head)
    await writer.drain()

    async def trickle() -> None:
        for byte in dribble:
            await asyncio.sleep(every)
            writer.write(bytes([byte]))
            await writer.drain()

    sender = asyncio.create_task(trickle())
    try:
        raw = await asyncio.wait_for(reader.read(), 10)  # until the server closes
    finally:
        sender.cancel()
        writer.close()
    closed_after = time.monotonic() - started
    head_part, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head_part.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body, closed_after, raw


async def test_a_dribbled_body_is_cut_off_with_a_408(address, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    body = b'{"name": "' + b"x" * 40 + b'"}'
    head = (
        f"POST /api/v1/apps HTTP/1.1\r\nHost: test\r\nx-api-key: {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    status, headers, answer, closed_after, _ = await exchange(address, head, body, every=0.3)
    assert status == 408
    assert json.loads(answer) == {
        "ok": False,
        "code": "REQUEST_TIMEOUT",
        "message": "the request body did not arrive within 1 seconds",
    }
    assert closed_after < 3


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(
            f"GET /api/v1/apps HTTP/1.1\r\nHost: t\r\nx-api-key: {SECRET}{'A' * 9000}\r\n\r\n", id="long-header"
        ),
        pytest.param(f"GET /api/v1/apps?k={SECRET}{'A' * 40000} HTTP/1.1\r\nHost: t\r\n\r\n", id="long-line"),
        pytest.param(f"GET /api/v1/apps HTTP/1.1\r\nHost: t\r\n{SECRET}\r\n\r\n", id="header-without-colon"),
        pytest.param(f"{SECRET} / HTTP/1.1\r\n\r\n", id="bad-method"),
        pytest.param(f"GET /{SECRET} HTTP/9.9\r\n\r\n", id="bad-version"),
        pytest.param(f"GET /api/v1/apps HTTP/1.1\r\nHost: t\r\nContent-Length: {SECRET}\r\n\r\n", id="bad-length"),
    ],
)
async def test_what_the_parser_refuses_is_an_envelope_that_echoes_nothing(address, head: str):
    status, headers, body, _, raw = await exchange(address, head.encode())
    assert 400 <= status < 500
    assert headers["content-type"].startswith("application/json")
    envelope = json.loads(body)
    assert envelope["ok"] is False
    assert set(envelope) == {"ok", "code", "message"}
    assert b"avk_" not in raw and b"Secret" not in raw
