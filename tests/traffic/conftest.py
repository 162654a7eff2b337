"""Fixtures of the AI-traffic tests: a gateway in front of a traffic service whose catalog adds a
test agent (published addresses, reverse DNS and a Web Bot Auth key directory served on loopback)
and whose DNS is a server on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from libs.common.db import create_pool
from libs.contract.parts import APPS, TRAFFIC
from tests.apps.fake_dns import FakeDns, dns_environ, start_fake_dns
from tests.conftest import Stack, TestDatabase, build_app
from tests.traffic.support import KeyDirectory, Tenant, TrafficApi, base_url, write_test_catalog


@pytest.fixture
async def dns() -> AsyncIterator[FakeDns]:
    server = await start_fake_dns()
    yield server
    server.close()


@pytest.fixture
async def key_directory(aiohttp_server: Any) -> KeyDirectory:
    directory = KeyDirectory(Ed25519PrivateKey.generate())
    directory.server = await aiohttp_server(directory.app())
    return directory


# Every case runs on both stores: PostgreSQL, and ClickHouse embedded by chdb.
@pytest.fixture(params=["postgres", "clickhouse"])
async def traffic(
    request: pytest.FixtureRequest,
    stack: Stack,
    dns: FakeDns,
    key_directory: KeyDirectory,
    tmp_path: Any,
    aiohttp_server: Any,
) -> AsyncIterator[TrafficApi]:
    """The gateway, through a traffic service reading the test catalog and asking the loopback DNS."""
    catalog = write_test_catalog(tmp_path / "agents.json", key_directory.origin)
    environ = stack.part_environ(TRAFFIC, AI_TRAFFIC_CATALOG=str(catalog), AI_TRAFFIC_CAPTURE="on", **dns_environ(dns))
    engine = None
    if request.param == "clickhouse":
        from libs.local.chdb_engine import ChdbEngine

        engine = ChdbEngine(str(tmp_path / "clickhouse"))
        # The engine is given to the app; the address is only what the setting requires.
        environ |= {"AI_TRAFFIC_STORE": "clickhouse", "CLICKHOUSE_URL": "http://embedded.invalid"}
    server = await aiohttp_server(build_app(TRAFFIC, environ, clickhouse_engine=engine))
    client = await stack.start_gateway({"TRAFFIC_URL": base_url(server)})
    yield TrafficApi(client, server, request.param)
    await client.close()
    await server.close()
    if engine is not None:
        engine.close()


@pytest.fixture
async def apps_pool(database: TestDatabase) -> AsyncIterator[Any]:
    async with create_pool(database.dsn(APPS), APPS.schema, 1, 2) as pool:
        yield pool


@pytest.fixture
async def traffic_pool(database: TestDatabase) -> AsyncIterator[Any]:
    async with create_pool(database.dsn(TRAFFIC), TRAFFIC.schema, 1, 2) as pool:
        yield pool


@pytest.fixture
async def tenant(traffic: TrafficApi, identity: Any, apps_pool: Any) -> Tenant:
    return await Tenant.make(traffic, identity, apps_pool)


@pytest.fixture
async def other_tenant(traffic: TrafficApi, identity: Any, apps_pool: Any) -> Tenant:
    return await Tenant.make(traffic, identity, apps_pool)
