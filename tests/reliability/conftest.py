"""Fixtures of the reliability tests. `private_stack` is a stack of its own for fault tests: a
private PostgreSQL (`initdb` under `.data/faults-*`) and Redis on free ports, every part under
gunicorn started by `libs.local.processes.start`, as `make run` does (search indexing on), an
organization, a product and a key of every scope; one per test module."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from libs.common import bootstrap as db
from libs.contract.parts import GATEWAY, PARTS, Part
from libs.local.ports import free_port
from libs.local.processes import start, stop, wait_ready
from libs.local.stores import DATA, private_postgres, private_redis
from tests.e2e.conftest import admin
from tests.oauth.conftest import clock, oauth  # noqa: F401  (the attacks on tokens, test_token_revocation.py)


@dataclass
class PrivateStack:
    directory: Path
    environ: dict[str, str]
    gateway: str
    running: list
    postgres_port: int
    redis_port: int
    key: str
    organization_id: str
    product_id: str
    log: Path
    exits: ExitStack = field(default_factory=ExitStack)

    def workers(self, part: Part) -> list[int]:
        """The gunicorn workers of `part`."""
        master = next(item.process.pid for item in self.running if item.part.name == part.name)
        found = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
        assert found, f"no worker of {part.name}"
        return [int(pid) for pid in found]

    def signal_workers(self, part: Part, signum: int) -> None:
        for pid in self.workers(part):
            os.kill(pid, signum)

    def restart_redis_empty(self) -> None:
        """Stop the private Redis without saving and start a new, empty one on its port (what a
        restart without persistence, or a failover to an empty replica, leaves)."""
        client = redis.Redis(port=self.redis_port)
        with contextlib.suppress(redis.ConnectionError):  # the server leaves without answering
            client.shutdown(nosave=True)
        client.close()
        self.exits.enter_context(private_redis(self.directory / "redis-again", self.redis_port))


@pytest.fixture(scope="module")
def private_stack(base_environ: dict[str, str], request: pytest.FixtureRequest) -> Iterator[PrivateStack]:
    """The parts are the test module's `PARTS` when it has them (more workers of one, say), with
    its `ENVIRON` over the stack's settings."""
    parts = getattr(request.module, "PARTS", PARTS)
    directory = DATA / f"faults-{uuid.uuid4().hex[:8]}"
    postgres_port, redis_port = free_port(), free_port()
    # Every part has an address, started or not: a part's settings name them all.
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
            # The session's stack leaves indexing to tests/search; this one is whole, as `make run` starts it.
            "SEARCH_INDEXING": "on",
            # A test module's own settings (`ENVIRON`), a shorter lease say.
            **getattr(request.module, "ENVIRON", {}),
        }
        environ.update({f"{name.upper()}_URL": f"http://127.0.0.1:{port}" for name, port in ports.items()})
        output = stack.enter_context(open(DATA / f"{directory.name}.log", "wb"))  # kept, like the e2e logs
        restarted = stack.enter_context(ExitStack())  # a Redis started again outlives the parts, like the first
        running = start(parts, environ, ports, output)
        stack.callback(stop, running)
        wait_ready(running)
        gateway_environ = {**environ, "DATABASE_URL": db.part_dsn(database_url, GATEWAY)}
        slug = f"faults-{uuid.uuid4().hex[:8]}"
        organization = admin(gateway_environ, "create-org", "--slug", slug, "--name", "Faults")
        product = admin(gateway_environ, "create-product", "--org", slug, "--slug", "handbook", "--name", "Handbook")
        key = admin(gateway_environ, "create-key", "--org", slug, "--name", "faults", "--scopes", "all")
        yield PrivateStack(
            directory,
            environ,
            f"http://127.0.0.1:{ports['gateway']}",
            running,
            postgres_port,
            redis_port,
            key["key"],
            organization["id"],
            product["id"],
            DATA / f"{directory.name}.log",
            restarted,
        )
