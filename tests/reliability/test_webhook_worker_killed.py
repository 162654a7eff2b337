"""The events worker killed in the middle of a webhook burst: every event still reaches every
endpoint, at least once.

Persona creations are committed one after another through the personas service's own queries
(each queues its event in the personas outbox), fanned out to two receivers on loopback; a third
of the way through, the events part's worker is killed (SIGKILL: no flush, no goodbye) and
gunicorn starts another. What the dead worker had claimed is sent again when its lease ends (15 s
here), and the stream entries it had read but not stored are taken over by the new worker.
"""

from __future__ import annotations

import asyncio
import signal
import time
import uuid

import aiohttp
import pytest
from aiohttp import web

from libs.common import bootstrap as db
from libs.common.db import create_pool, transaction
from libs.common.encoding import loads
from libs.contract.parts import EVENTS, GATEWAY, PERSONAS
from services.personas import queries as personas
from tests.reliability.conftest import PrivateStack

pytestmark = pytest.mark.slow

PARTS = (GATEWAY, PERSONAS, EVENTS)
ENVIRON = {"WEBHOOK_LEASE_SECONDS": "15"}
EVENTS_SENT = 300
KILLED_AFTER = 100
WITHIN_SECONDS = 120.0


class Receiver:
    def __init__(self) -> None:
        self.received: dict[str, int] = {}
        self.runner: web.AppRunner | None = None

    async def handle(self, request: web.Request) -> web.Response:
        event = loads(await request.read())
        self.received[event["id"]] = self.received.get(event["id"], 0) + 1
        return web.Response(status=204)

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/hook", self.handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        return f"http://127.0.0.1:{self.runner.addresses[0][1]}/hook"


async def test_every_event_is_delivered_after_the_events_worker_is_killed_mid_burst(private_stack: PrivateStack):
    stack = private_stack
    receivers = [Receiver(), Receiver()]
    async with aiohttp.ClientSession(headers={"x-api-key": stack.key}) as session:
        for receiver in receivers:
            body = {"url": await receiver.start(), "events": ["persona.updated"]}
            async with session.post(f"{stack.gateway}/api/v1/webhook-endpoints", json=body) as answer:
                assert answer.status == 201, await answer.text()
    tag = uuid.uuid4().hex[:8]
    dsn = db.part_dsn(stack.environ["DATABASE_URL"], PERSONAS)
    killed = stack.workers(EVENTS)
    try:
        async with create_pool(dsn, PERSONAS.schema, 1, 2) as pool:
            for index in range(EVENTS_SENT):
                if index == KILLED_AFTER:
                    stack.signal_workers(EVENTS, signal.SIGKILL)
                async with transaction(pool) as cur:
                    values = {"name": f"{tag} {index}", "description": "d", "system_prompt": None}
                    await personas.create_persona(cur, stack.organization_id, stack.product_id, values)
            async with transaction(pool) as cur:
                await cur.execute("SELECT id::text FROM webhook_outbox WHERE data->>'name' LIKE %s", (f"{tag} %",))
                sent = {row["id"] for row in await cur.fetchall()}
        assert len(sent) == EVENTS_SENT
        deadline = time.monotonic() + WITHIN_SECONDS
        while time.monotonic() < deadline and any(not sent <= set(receiver.received) for receiver in receivers):
            await asyncio.sleep(0.5)
        for receiver in receivers:
            missing = sent - set(receiver.received)
            assert not missing, f"{len(missing)} of {EVENTS_SENT} events never arrived"
        assert not set(stack.workers(EVENTS)) & set(killed)  # a new worker took over
    finally:
        for receiver in receivers:
            if receiver.runner is not None:
                await receiver.runner.cleanup()
