"""Background loops while their store is away, on the event loop the services run (uvloop): the
webhook deliverer against a PostgreSQL that refuses every connection, and an events consumer
against a Redis that is not there, then is again. Each loop waits longer and longer between
attempts instead of spinning, and the outage is two WARNING lines, its start and its end with a
count, with no ERROR and no traceback."""

from __future__ import annotations

import asyncio
import logging
import shutil
import time
import uuid
from collections.abc import Iterable
from types import SimpleNamespace

import aiohttp
import pytest
import uvloop

from libs.common.db import create_pool
from libs.common.redis_client import create_redis
from libs.common.stream_consumer import Entry, StreamConsumer
from libs.common.tasks import BACKOFF_MAX_SECONDS, periodic_group
from libs.local.ports import free_port
from libs.local.stores import DATA, private_redis
from services.events.delivery import Deliverer

OUTAGE_SECONDS = 3.0
# 0.1 s doubling up to the cap, each wait at least half of that: at most this many in the outage.
MOST_ATTEMPTS = 10


class RefusingServer:
    """A listener that takes each connection and closes it at once: a database that is away,
    counting how often it was tried."""

    def __init__(self) -> None:
        self.attempts = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> RefusingServer:
        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.attempts += 1
            writer.close()

        self._server = await asyncio.start_server(accepted, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()


def outage_lines(caplog: pytest.LogCaptureFixture, logger: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == logger]


async def deliverer_during_database_outage() -> int:
    settings = SimpleNamespace(
        webhook_concurrency=4, webhook_concurrency_per_endpoint=2, webhook_lease_seconds=60, webhook_allowed_networks=()
    )
    async with RefusingServer() as database:
        dsn = f"postgresql://nobody@127.0.0.1:{database.port}/nothing?connect_timeout=2"
        async with create_pool(dsn, "events", 0, 2) as pool, aiohttp.ClientSession() as session:
            worker = Deliverer(pool, settings, session)  # type: ignore[arg-type]
            async with periodic_group({"webhook-deliveries": (0.0, worker.step)}):
                await asyncio.sleep(OUTAGE_SECONDS)
        return database.attempts


def test_the_deliverer_backs_off_while_postgresql_is_away(caplog):
    caplog.set_level(logging.INFO)
    attempts = uvloop.run(deliverer_during_database_outage())
    assert 2 <= attempts <= MOST_ATTEMPTS, attempts
    lines = outage_lines(caplog, "libs.common.db")
    assert [record.levelname for record in lines] == ["WARNING"], [record.getMessage() for record in lines]
    assert lines[0].getMessage().startswith("database unavailable")
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []


class Counting(StreamConsumer):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.handled = 0

    async def handle(self, entries: Iterable[Entry]) -> None:
        batch = list(entries)
        self.handled += len(batch)
        await self.ack(*(entry_id for entry_id, _ in batch))


async def consumer_during_redis_outage(port: int) -> tuple[int, int]:
    """Rounds of a consumer while Redis is away, and entries it handled once it was back."""
    client = create_redis(f"redis://127.0.0.1:{port}/0")
    consumer = Counting(client, "outage:stream", "outage-group")
    rounds = 0

    async def step() -> None:
        nonlocal rounds
        rounds += 1
        await consumer.step()

    directory = DATA / f"redis-outage-{uuid.uuid4().hex[:8]}"
    try:
        async with periodic_group({"consume": (0.0, step)}):
            await asyncio.sleep(OUTAGE_SECONDS)
            away = rounds
            with private_redis(directory, port):
                await client.xadd("outage:stream", {"event": "{}"})
                deadline = time.monotonic() + BACKOFF_MAX_SECONDS + 2
                while consumer.handled < 1 and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)
                handled = consumer.handled
        await client.aclose()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return away, handled


def test_an_events_consumer_backs_off_while_redis_is_away_and_logs_its_start_and_end(caplog):
    caplog.set_level(logging.INFO)
    away, handled = uvloop.run(consumer_during_redis_outage(free_port()))
    assert 2 <= away <= MOST_ATTEMPTS, away
    assert handled == 1
    lines = outage_lines(caplog, "libs.common.redis_client")
    assert [record.levelname for record in lines] == ["WARNING", "WARNING"], [record.getMessage() for record in lines]
    assert lines[0].getMessage().startswith("redis unavailable")
    assert lines[1].getMessage().startswith("redis available again")
    assert "operations failed meanwhile" in lines[1].getMessage()
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []
    assert [record for record in caplog.records if record.exc_info] == []
