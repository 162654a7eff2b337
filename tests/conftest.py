"""Shared fixtures: a fresh database per test session, real Redis, the parts as real apps.

The database is created and bootstrapped exactly as `make run` does it (roles, schemas,
migrations), then dropped at the end. Tests isolate by building their own organizations, so
nothing needs cleaning between them and tests never see each other's rows.
"""

from __future__ import annotations

import os
import secrets
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import psycopg2
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from psycopg2 import sql
from psycopg2.extensions import make_dsn

from deploy import db
from deploy.parts import GATEWAY, SIMULATIONS, Part
from gateway.app import create_app as create_gateway
from gateway.settings import GatewaySettings
from libs.common.db import create_pool
from libs.common.redis_client import create_redis
from services.simulations.app import create_app as create_simulations
from services.simulations.app import load_settings as simulations_settings
from tests.factories import IdentityFactory, SimulationFactory

ADMIN_URL = os.environ.get("DATABASE_URL") or db.DEFAULT_DATABASE_URL
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
# A port nothing listens on: upstreams of services not under test answer "connection refused".
CLOSED_PORT_URL = "http://127.0.0.1:9"


@dataclass(frozen=True)
class TestDatabase:
    admin_dsn: str

    def dsn(self, part: Part) -> str:
        return db.part_dsn(self.admin_dsn, part)


@pytest.fixture(scope="session")
def database() -> Iterator[TestDatabase]:
    name = f"aivis_test_{uuid.uuid4().hex[:12]}"
    admin = make_dsn(ADMIN_URL, dbname=name)
    db.setup(admin)
    yield TestDatabase(admin)
    conn = psycopg2.connect(make_dsn(ADMIN_URL, dbname="postgres"))
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    conn.close()


@pytest.fixture(scope="session")
def jwt_private_key() -> str:
    return Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()


@pytest.fixture(scope="session")
def base_environ(database: TestDatabase, jwt_private_key: str) -> dict[str, str]:
    """The environment every part of a test session shares."""
    return {
        "REDIS_URL": REDIS_URL,
        "REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}:",
        "INTERNAL_TOKEN_SECRET": secrets.token_urlsafe(48),
        "JWT_PRIVATE_KEY": jwt_private_key,
        "ENVIRONMENT": "development",
        "DB_POOL_MAX": "8",
        # High enough that only the rate-limit tests, which lower it, ever meet it.
        "RATE_LIMIT_PER_MINUTE": "600000",
        "RATE_LIMIT_BURST": "10000",
    }


def part_environ(base: dict[str, str], database: TestDatabase, part: Part, **extra: str) -> dict[str, str]:
    return {**base, "DATABASE_URL": database.dsn(part), **extra}


@pytest.fixture
def gateway_environ(base_environ: dict[str, str], database: TestDatabase) -> dict[str, str]:
    upstreams = {f"{name.upper()}_URL": CLOSED_PORT_URL for name in ("content", "apps", "personas", "search")}
    return part_environ(base_environ, database, GATEWAY, **upstreams)


@pytest.fixture
async def simulations_server(base_environ: dict[str, str], database: TestDatabase) -> AsyncIterator[TestServer]:
    settings = simulations_settings(part_environ(base_environ, database, SIMULATIONS))
    server = TestServer(create_simulations(settings))
    await server.start_server()
    yield server
    await server.close()


async def start_gateway(environ: dict[str, str], **kwargs: object) -> TestClient[web.Request, web.Application]:
    client = TestClient(TestServer(create_gateway(GatewaySettings.load(environ), **kwargs)))  # type: ignore[arg-type]
    await client.start_server()
    return client


@pytest.fixture
async def gateway(
    gateway_environ: dict[str, str], simulations_server: TestServer
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    """The gateway in front of a real simulations service; other upstreams refuse connections."""
    client = await start_gateway({**gateway_environ, "SIMULATIONS_URL": str(simulations_server.make_url("")).rstrip("/")})
    yield client
    await client.close()


@pytest.fixture
async def identity(database: TestDatabase, base_environ: dict[str, str]) -> AsyncIterator[IdentityFactory]:
    async with create_pool(database.dsn(GATEWAY), GATEWAY.schema, 1, 4) as pool:
        redis = create_redis(REDIS_URL)
        yield IdentityFactory(pool, redis, base_environ["JWT_PRIVATE_KEY"])
        await redis.aclose()


@pytest.fixture
async def simulations(simulations_server: TestServer, base_environ: dict[str, str]) -> SimulationFactory:
    return SimulationFactory(simulations_server, base_environ["INTERNAL_TOKEN_SECRET"])
