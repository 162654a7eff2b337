"""The Redis client after a Redis restart and during a freeze, against a Redis of its own: every
pooled connection is stale after a restart, and each operation is retried once on a fresh one
instead of failing; a frozen Redis fails an operation within the socket timeout, not after a
series of retries."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
import uuid
from collections.abc import Iterator

import pytest
import redis

from libs.common.redis_client import SOCKET_TIMEOUT_SECONDS, create_redis
from libs.local.ports import free_port
from libs.local.stores import DATA, private_redis

SCRIPT = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
CONNECTIONS = 6


@pytest.fixture
def restartable() -> Iterator[tuple[int, list]]:
    """A private Redis's port, and a list of contexts: a restart appends a new server to it."""
    directory = DATA / f"redis-reconnect-{uuid.uuid4().hex[:8]}"
    port = free_port()
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, directory, True)
        stack.enter_context(private_redis(directory / "first", port))
        yield port, [stack, directory]


def restart_empty(port: int, stack: contextlib.ExitStack, directory) -> None:
    client = redis.Redis(port=port)
    with contextlib.suppress(redis.ConnectionError):
        client.shutdown(nosave=True)
    client.close()
    stack.enter_context(private_redis(directory / "again", port))


async def test_every_kind_of_operation_survives_a_restart_of_redis(restartable):
    port, (stack, directory) = restartable
    client = create_redis(f"redis://127.0.0.1:{port}/0")
    script = client.register_script(SCRIPT)
    try:
        # Several pooled connections, all of which the restart leaves stale.
        await asyncio.gather(*(client.set(f"k{index}", index) for index in range(CONNECTIONS)))
        await script(keys=["counter"], args=[1])
        await asyncio.to_thread(restart_empty, port, stack, directory)

        async def pipelined() -> list:
            async with client.pipeline(transaction=False) as pipe:
                await script(keys=["counter"], args=[2], client=pipe)
                return await pipe.execute()

        answers = await asyncio.gather(
            client.get("k1"),
            client.set("k2", "again"),
            client.xadd("stream", {"field": "value"}),
            script(keys=["counter"], args=[3]),
            pipelined(),
            client.ping(),
        )
        assert answers[0] is None  # restarted empty
        assert answers[1] is True
        assert int(await client.get("counter")) == 5
    finally:
        await client.aclose()


async def test_a_frozen_redis_fails_an_operation_within_its_socket_timeout(restartable):
    port, _ = restartable
    client = create_redis(f"redis://127.0.0.1:{port}/0")
    try:
        info = await client.info("server")
        pid = int(info["process_id"])
        os.kill(pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with pytest.raises(redis.exceptions.TimeoutError):
                await client.get("anything")
            assert time.monotonic() - started < 2 * SOCKET_TIMEOUT_SECONDS + 0.5
        finally:
            os.kill(pid, signal.SIGCONT)
        assert await client.ping()
    finally:
        await client.aclose()
