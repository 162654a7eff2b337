"""Faults against a stack of its own: a private PostgreSQL and Redis, every part under gunicorn
as `make run` starts it. Under a bounded load loop, Redis is paused, PostgreSQL stopped and
started again, and a service worker killed: every answer is an envelope (503/502/504 while
down, never 500), nothing hangs past the route timeout, everything recovers without a restart,
and no acknowledged write is lost."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field

import aiohttp
import pytest
import redis

from deploy import db
from deploy.parts import CONTENT, GATEWAY, PARTS
from deploy.run import start, stop, wait_ready
from deploy.stack import DATA, private_postgres, private_redis, start_postgres, stop_postgres
from tests.conftest import free_port
from tests.e2e.conftest import admin

pytestmark = pytest.mark.slow

ROUTE_TIMEOUT_SECONDS = 10.0  # the gateway's default route timeout
FAULT_SECONDS = 4.0
RECOVERY_DEADLINE_SECONDS = 20.0


@dataclass
class PrivateStack:
    directory: object
    environ: dict[str, str]
    gateway: str
    running: list
    postgres_port: int
    redis_port: int
    key: str
    organization_id: str
    product_id: str


@pytest.fixture(scope="module")
def private_stack(base_environ: dict[str, str]) -> Iterator[PrivateStack]:
    directory = DATA / f"faults-{uuid.uuid4().hex[:8]}"
    postgres_port, redis_port = free_port(), free_port()
    ports = {part.name: free_port() for part in PARTS}
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, directory, True)
        database_url = stack.enter_context(private_postgres(directory / "postgres", postgres_port))
        redis_url = stack.enter_context(private_redis(directory / "redis", redis_port))
        db.setup(database_url)
        environ = {
            **os.environ,
            **base_environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "DB_POOL_MAX": "4",
        }
        environ.update(
            {
                f"{part.name.upper()}_URL": f"http://127.0.0.1:{port}"
                for part, port in zip(PARTS, ports.values(), strict=True)
            }
        )
        output = stack.enter_context(open(DATA / f"{directory.name}.log", "wb"))  # kept, like the e2e logs
        running = start(PARTS, environ, ports, output)
        stack.callback(stop, running)
        wait_ready(running)
        gateway_environ = {**environ, "DATABASE_URL": db.part_dsn(database_url, GATEWAY)}
        slug = f"faults-{uuid.uuid4().hex[:8]}"
        organization = admin(gateway_environ, "create-org", "--slug", slug, "--name", "Faults")
        product = admin(gateway_environ, "create-product", "--org", slug, "--slug", "handbook", "--name", "Handbook")
        key = admin(gateway_environ, "create-key", "--org", slug, "--name", "faults", "--scopes", "all")
        yield PrivateStack(directory, environ, f"http://127.0.0.1:{ports['gateway']}", running, postgres_port,
                           redis_port, key["key"], organization["id"], product["id"])  # fmt: skip


@dataclass
class Load:
    """A bounded loop of reads and writes through the gateway, recording every answer."""

    stack: PrivateStack
    answers: list[tuple[float, str, int, float]] = field(default_factory=list)  # (at, what, status, seconds)
    acknowledged: dict[str, str] = field(default_factory=dict)  # document id -> its unique word
    problems: list[str] = field(default_factory=list)

    async def one(self, session: aiohttp.ClientSession, what: str, method: str, path: str, body=None) -> None:
        started = time.monotonic()
        try:
            async with session.request(method, self.stack.gateway + path, json=body) as response:
                text = await response.text()
                status = response.status
        except (aiohttp.ClientError, TimeoutError) as exc:
            self.problems.append(f"{what}: no answer ({exc!r})")
            return
        seconds = time.monotonic() - started
        self.answers.append((started, what, status, seconds))
        if not response.headers.get("Content-Type", "").startswith("application/json") or '"ok":' not in text:
            self.problems.append(f"{what}: {status} is not an envelope: {text[:120]}")
        if status == 500 or (status >= 500 and status not in (502, 503, 504)):
            self.problems.append(f"{what}: {status} {text[:200]}")
        if seconds > ROUTE_TIMEOUT_SECONDS + 2:
            self.problems.append(f"{what}: answered after {seconds:.1f}s")
        if what == "write" and status == 200:
            for page in json.loads(text)["data"]["created"]:
                self.acknowledged[page["id"]] = body["pages"][0]["content"]

    async def run(self, seconds: float) -> None:
        timeout = aiohttp.ClientTimeout(total=ROUTE_TIMEOUT_SECONDS + 5)
        headers = {"x-api-key": self.stack.key}
        deadline = time.monotonic() + seconds
        async with aiohttp.ClientSession(timeout=timeout, headers=headers) as session:
            while time.monotonic() < deadline:
                word = f"zq{secrets.token_hex(5)}"
                page = {"slug": word, "title": f"Fault page {word}", "content": word, "status": "published"}
                await asyncio.gather(
                    self.one(session, "read", "GET", "/api/v1/agent-simulation/runs"),
                    self.one(session, "read", "GET", f"/api/v1/site/pages?productId={self.stack.product_id}"),
                    self.one(
                        session,
                        "write",
                        "POST",
                        "/api/v1/site/pages",
                        {"productId": self.stack.product_id, "pages": [page]},
                    ),  # fmt: skip
                )
                await asyncio.sleep(0.25)


async def fault_round(stack: PrivateStack, inject: Callable[[], Awaitable[None]], heal: Callable[[], Awaitable[None]]):
    """Load before, during and after a fault (until two seconds of only 2xx, at most
    RECOVERY_DEADLINE_SECONDS); the load and the seconds from healing to the last failure."""
    load = Load(stack)
    runner = asyncio.create_task(load.run(2 + FAULT_SECONDS + RECOVERY_DEADLINE_SECONDS))
    await asyncio.sleep(2)
    await inject()
    await asyncio.sleep(FAULT_SECONDS)
    healed_at = time.monotonic()
    await heal()
    while not runner.done():
        failing = [at for at, _, status, _ in load.answers if at >= healed_at and status >= 300]
        last_failure = max(failing, default=healed_at)
        if time.monotonic() - last_failure > 2 and any(at > last_failure for at, *_ in load.answers):
            runner.cancel()
            break
        await asyncio.sleep(0.2)
    with contextlib.suppress(asyncio.CancelledError):
        await runner
    failing = [at for at, _, status, _ in load.answers if at >= healed_at and status >= 300]
    return load, max(failing, default=healed_at) - healed_at


async def stored(stack: PrivateStack, ids: list[str]) -> list[str]:
    """Of `ids`, those the content service no longer answers."""
    lost = []
    async with aiohttp.ClientSession(headers={"x-api-key": stack.key}) as session:
        for document_id in ids:
            async with session.get(f"{stack.gateway}/api/v1/content/{document_id}") as response:
                if response.status != 200:
                    lost.append(document_id)
    return lost


def report(name: str, load: Load, recovered: float) -> str:
    statuses: dict[int, int] = {}
    for _, _, status, _ in load.answers:
        statuses[status] = statuses.get(status, 0) + 1
    return f"{name}: {len(load.answers)} requests {dict(sorted(statuses.items()))}, recovered in {recovered:.1f}s"


async def check(stack: PrivateStack, name: str, load: Load, recovered: float) -> None:
    print(report(name, load, recovered))
    assert load.problems == []
    assert recovered < RECOVERY_DEADLINE_SECONDS, report(name, load, recovered)
    assert load.acknowledged
    assert await stored(stack, sorted(load.acknowledged)) == []


async def test_redis_paused(private_stack: PrivateStack):
    client = redis.Redis(port=private_stack.redis_port)

    async def pause() -> None:
        client.client_pause(int(FAULT_SECONDS * 1000) + 1000)

    async def resume() -> None:
        client.client_unpause()

    load, recovered = await fault_round(private_stack, pause, resume)
    client.close()
    await check(private_stack, "Redis paused", load, recovered)


async def test_postgres_stopped_and_started_again(private_stack: PrivateStack):
    directory = private_stack.directory / "postgres"

    async def stop_it() -> None:
        await asyncio.to_thread(stop_postgres, directory)

    async def start_it() -> None:
        await asyncio.to_thread(start_postgres, directory, private_stack.postgres_port)

    load, recovered = await fault_round(private_stack, stop_it, start_it)
    await check(private_stack, "PostgreSQL stopped", load, recovered)


async def test_a_service_worker_killed(private_stack: PrivateStack):
    master = next(item.process.pid for item in private_stack.running if item.part is CONTENT)

    async def kill_worker() -> None:
        workers = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
        assert workers
        for pid in workers:
            os.kill(int(pid), signal.SIGKILL)

    async def nothing() -> None:
        pass

    load, recovered = await fault_round(private_stack, kill_worker, nothing)
    await check(private_stack, "content worker killed", load, recovered)
