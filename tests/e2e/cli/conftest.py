"""Running the installed `aivis` against the live stack, and the data its tests need.

Test modules import the helpers from here; pytest gives them the fixtures."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gateway.identity.oauth import device
from libs.common.db import create_pool, transaction
from libs.contract.parts import GATEWAY
from tests.conftest import TestDatabase
from tests.e2e.conftest import LiveStack, admin

AIVIS = str(Path(sys.executable).parent / "aivis")


@dataclass
class Cli:
    """`aivis` with its own config directory, against the live gateway."""

    stack: LiveStack
    config_dir: Path
    api_key: str | None = None

    def environ(self, **extra: str) -> dict[str, str]:
        environ = {key: value for key, value in os.environ.items() if not key.startswith("AIVIS_")}
        environ.update(AIVIS_CONFIG_DIR=str(self.config_dir), AIVIS_BASE_URL=self.stack.gateway, **extra)
        if self.api_key is not None:
            environ["AIVIS_API_KEY"] = self.api_key
        return environ

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [AIVIS, *args], env=self.environ(**extra), capture_output=True, text=True, timeout=120, check=False
        )

    def ok(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == 0, (args, done.returncode, done.stdout, done.stderr)
        return done.stdout

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "--json"))

    def fails(self, exit_code: int, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == exit_code, (args, done.returncode, done.stdout, done.stderr)
        return done.stderr

    def login(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [AIVIS, "login"], env=self.environ(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )


def read_user_code(process: subprocess.Popen[str]) -> str:
    """The code `aivis login` prints, read before anything else happens."""
    assert process.stdout is not None
    for _ in range(3):
        line = process.stdout.readline()
        if "enter the code" in line:
            return line.rsplit(" ", 1)[1].strip()
    raise AssertionError("aivis login printed no code")


@dataclass(frozen=True)
class Member:
    user_id: str
    email: str


def gateway_environ(stack: LiveStack, database: TestDatabase) -> dict[str, str]:
    return {**stack.environ, "DATABASE_URL": database.dsn(GATEWAY)}


def new_member(stack: LiveStack, database: TestDatabase, role: str = "owner") -> Member:
    environ = gateway_environ(stack, database)
    email = f"cli-{uuid.uuid4().hex[:8]}@example.com"
    user = admin(environ, "create-user", "--email", email, "--name", "CLI User")
    admin(environ, "add-member", "--org", stack.organization_id, "--user", email, "--role", role)
    return Member(user["id"], email)


def decide(database: TestDatabase, user_code: str, member: Member, organization_id: str, approve: bool) -> None:
    """What the device page records when the signed-in member decides."""

    async def record() -> None:
        async with create_pool(database.dsn(GATEWAY), GATEWAY.schema, 1, 1) as pool, transaction(pool) as cur:
            code = device.normalize_user_code(user_code) or ""
            row = await device.decide(cur, code, member.user_id, organization_id, "owner", approve, datetime.now(UTC))
            assert row is not None

    asyncio.run(record())


@pytest.fixture
def cli(live_stack: LiveStack, tmp_path: Path) -> Cli:
    """Signed in with the live organization's API key."""
    return Cli(live_stack, tmp_path / "config", api_key=live_stack.api_key)


@pytest.fixture
def product(live_stack: LiveStack, database: TestDatabase) -> dict[str, Any]:
    slug = f"cli-{uuid.uuid4().hex[:8]}"
    return admin(
        gateway_environ(live_stack, database),
        "create-product",
        "--org",
        live_stack.organization_id,
        "--name",
        f"Product {slug}",
        "--slug",
        slug,
    )
