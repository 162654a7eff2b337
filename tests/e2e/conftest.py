"""Every part as a real gunicorn process, started by the same code as `make run`, once per session."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import aiohttp
import pytest

from libs.common.internal_token import HEADER, mint, service_caller
from libs.contract.parts import GATEWAY, PARTS, ROOT
from libs.local.ports import free_port
from libs.local.processes import start, stop, wait_ready
from libs.local.stores import DATA
from tests.conftest import TestDatabase, fresh_database


@dataclass(frozen=True)
class LiveStack:
    urls: dict[str, str]
    # Each part's metrics listener, apart from its public port.
    metrics: dict[str, str]
    environ: dict[str, str]
    api_key: str
    organization_id: str

    @property
    def gateway(self) -> str:
        return self.urls[GATEWAY.name]


def admin(environ: dict[str, str], *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "gateway.admin", "--json", *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: dict = json.loads(done.stdout)
    return result


async def record_runs(stack: LiveStack, count: int) -> None:
    """Runs recorded the way the simulation runner records them: through the service's intake."""
    headers = {HEADER: mint(stack.environ["INTERNAL_TOKEN_SECRET"], service_caller("simulation-runner"))}
    base, org = stack.urls["simulations"], stack.organization_id
    async with aiohttp.ClientSession(headers=headers) as session:

        async def post(path: str, body: dict) -> dict:
            async with session.post(base + path, json=body) as response:
                assert response.status == 201, await response.text()
                result: dict = await response.json()
                return result

        task = await post("/internal/tasks", {"organizationId": org, "name": "Checkout", "category": "commerce"})
        environment = await post(
            "/internal/environments",
            {"organizationId": org, "taskId": task["id"], "name": "browser", "agentConfig": {"steps": 10}},
        )
        for index in range(count):
            await post(
                "/internal/runs",
                {
                    "organizationId": org,
                    "environmentId": environment["id"],
                    "taskId": task["id"],
                    "status": "completed",
                    "passed": index % 2 == 0,
                    "overallScore": index / count,
                    "metadata": {"index": index},
                },
            )


@pytest.fixture(scope="session")
def database() -> Iterator[TestDatabase]:
    """The end-to-end tests' own database: their gunicorn processes (search's indexer, the events
    part's deliveries, the relays) work on it alone, never on the rows of the in-process stacks."""
    with fresh_database() as created:
        yield created


@pytest.fixture(scope="session")
def live_stack(database: TestDatabase, base_environ: dict[str, str]) -> Iterator[LiveStack]:
    ports = {part.name: free_port() for part in PARTS}
    urls = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    metrics_ports = {part.name: free_port() for part in PARTS}
    metrics = {name: f"http://127.0.0.1:{port}/metrics" for name, port in metrics_ports.items()}
    # Its own Redis keys too (inside the session's prefix, which goes at the end): its consumers
    # never take the in-process stacks' change events.
    redis_prefix = base_environ["REDIS_PREFIX"] + "live:"
    environ = {**os.environ, **base_environ, "DATABASE_URL": database.admin_dsn, "REDIS_PREFIX": redis_prefix}
    environ.update({f"{name.upper()}_URL": url for name, url in urls.items()})
    DATA.mkdir(exist_ok=True)
    with open(DATA / f"e2e-{uuid.uuid4().hex[:8]}.log", "wb") as output:
        running = start(PARTS, environ, ports, output, metrics_ports)
        try:
            wait_ready(running)
            gateway_environ = {**environ, "DATABASE_URL": database.dsn(GATEWAY)}
            slug = f"e2e-{uuid.uuid4().hex[:8]}"
            organization = admin(gateway_environ, "create-org", "--slug", slug, "--name", "End to end")
            key = admin(gateway_environ, "create-key", "--org", slug, "--name", "e2e", "--scopes", "all")
            stack = LiveStack(urls, metrics, environ, key["key"], organization["id"])
            asyncio.run(record_runs(stack, 12))
            yield stack
        finally:
            stop(running)


# The dashboard's browser fixtures (tests/e2e/browser.py), for every test of this folder.
from tests.e2e.browser import accounts, browser, context, page  # noqa: E402, F401
