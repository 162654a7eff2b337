"""Webhook deliveries on real gunicorn processes: 1,000 events fanned out to 3 endpoints on loopback.

Events are persona creations committed one after another through the personas service's own
queries (a trigger queues each in the personas outbox); the personas relay publishes them, the
events service stores them, queues a delivery per endpoint and sends them signed. Latency is
from the event's `occurredAt` (its insert, just before the commit) to its receipt, per
delivery. Round two adds a fourth endpoint that never answers (each of its deliveries waits out
the 10 s timeout): the three others should not notice. Round three commits the 1,000 events in one
transaction, so the events worker has all 3,000 deliveries at once: its capacity, deliveries a
second from that commit to the last receipt.

    python -m deploy.stack exec -- python -m bench.webhooks
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

from bench.common import BenchStack, bench_stack, load_average, report, say
from gateway import product_queries
from gateway import queries as identity
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.common.encoding import loads
from libs.contract.parts import EVENTS, GATEWAY, PERSONAS
from services.personas import queries as personas

EVENTS_PER_ROUND = 1000
FAST_ENDPOINTS = 3
WAIT_SECONDS = 120.0


@dataclass
class Receiver:
    """Records the receipt time of each delivery, by event id; `hang` never answers."""

    hang: bool = False
    received: dict[str, float] = field(default_factory=dict)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle(self, request: web.Request) -> web.Response:
        arrived = time.time()
        event = loads(await request.read())
        self.received.setdefault(event["id"], arrived)
        if self.hang:
            await self.released.wait()
        return web.Response(status=204)


async def serve(receiver: Receiver) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_post("/hook", receiver.handle)
    runner = web.AppRunner(app, shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/hook"


async def seed(stack: BenchStack) -> tuple[str, str, str]:
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        row = await identity.create_organization(cur, "bench-webhooks", "Bench Webhooks")
        key, _ = await create_api_key(cur, str(row["id"]), "bench", ALL_SCOPES)
        product = await product_queries.create_product(cur, str(row["id"]), "Product", "product")
    return key, str(row["id"]), str(product["id"])


@dataclass
class Round:
    latencies_ms: list[float]
    deliveries_per_second: float
    missing: int
    # The reference of the same run: how fast the events were committed.
    commits_per_second: float


async def run_round(
    stack: BenchStack, key: str, organization: str, product: str, tag: str, hanging: bool, at_once: bool = False
) -> Round:
    fast = [Receiver() for _ in range(FAST_ENDPOINTS)]
    slow = Receiver(hang=True)
    servers = [await serve(receiver) for receiver in [*fast, *([slow] if hanging else [])]]
    endpoints = []
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        for _, url in servers:
            body = {"url": url, "events": ["persona.updated"]}
            async with session.post(stack.url("gateway") + "/api/v1/webhook-endpoints", json=body) as answer:
                assert answer.status == 201, await answer.text()
                endpoints.append((await answer.json())["data"]["id"])
    occurred: dict[str, float] = {}
    started = time.time()
    async with create_pool(stack.part_dsn(PERSONAS), PERSONAS.schema, 1, 2) as pool:
        if at_once:
            async with transaction(pool) as cur:
                for index in range(EVENTS_PER_ROUND):
                    values = {"name": f"{tag} {index}", "description": "d", "system_prompt": None}
                    await personas.create_persona(cur, organization, product, values)
            started = time.time()  # the deliveries are there from the commit on
        else:
            for index in range(EVENTS_PER_ROUND):
                async with transaction(pool) as cur:
                    values = {"name": f"{tag} {index}", "description": "d", "system_prompt": None}
                    await personas.create_persona(cur, organization, product, values)
        committed = time.time()
        async with transaction(pool) as cur:
            await cur.execute(
                "SELECT id::text, extract(epoch FROM occurred_at) AS at FROM webhook_outbox"
                " WHERE data->>'name' LIKE %s",
                (f"{tag} %",),
            )
            occurred = {row["id"]: float(row["at"]) for row in await cur.fetchall()}
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline and any(len(receiver.received) < len(occurred) for receiver in fast):
        await asyncio.sleep(0.2)
    slow.released.set()
    latencies = [
        (arrived - occurred[event]) * 1000
        for receiver in fast
        for event, arrived in receiver.received.items()
        if event in occurred
    ]
    last = max((arrived for receiver in fast for arrived in receiver.received.values()), default=started)
    delivered = sum(len(receiver.received) for receiver in fast)
    for runner, _ in servers:
        await runner.cleanup()
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        for endpoint in endpoints:
            async with session.delete(f"{stack.url('gateway')}/api/v1/webhook-endpoints/{endpoint}"):
                pass
    return Round(
        sorted(latencies),
        delivered / max(last - started, 1e-9),
        FAST_ENDPOINTS * len(occurred) - delivered,
        float("inf") if at_once else EVENTS_PER_ROUND / max(committed - started, 1e-9),
    )


def line(result: Round) -> str:
    latencies = result.latencies_ms
    p50 = statistics.median(latencies) if latencies else float("nan")
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan")
    return (
        f"p50 {p50:7.1f} ms   p99 {p99:7.1f} ms   {result.deliveries_per_second:6.0f} deliveries/s"
        f"   ({len(latencies)} delivered, {result.missing} missing;"
        + (
            " events committed at once)"
            if result.commits_per_second == float("inf")
            else f" events committed at {result.commits_per_second:.0f}/s)"
        )
    )


def main() -> None:
    with bench_stack((GATEWAY, PERSONAS, EVENTS)) as stack:
        key, organization, product = asyncio.run(seed(stack))
        say(f"webhooks: {EVENTS_PER_ROUND} events to {FAST_ENDPOINTS} endpoints ({load_average()})")
        alone = asyncio.run(run_round(stack, key, organization, product, "alone", hanging=False))
        say(f"webhooks: the same beside an endpoint that never answers ({load_average()})")
        beside = asyncio.run(run_round(stack, key, organization, product, "beside", hanging=True))
        say(f"webhooks: {EVENTS_PER_ROUND} events committed at once ({load_average()})")
        at_once = asyncio.run(run_round(stack, key, organization, product, "once", hanging=False, at_once=True))
        report(
            f"Webhooks: {EVENTS_PER_ROUND} events committed one after another, fanned out to {FAST_ENDPOINTS}"
            " endpoints on loopback (commit to receipt)",
            [
                (f"{FAST_ENDPOINTS} endpoints", line(alone)),
                (f"{FAST_ENDPOINTS} endpoints beside one that never answers", line(beside)),
                (f"{FAST_ENDPOINTS} endpoints, the events committed at once (capacity)", line(at_once)),
                ("load", load_average()),
            ],
        )


if __name__ == "__main__":
    main()
