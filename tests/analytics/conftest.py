"""Fixtures of the analytics tests: tenants with a brand and competitors, sending and reading
answers through the gateway."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiopg
import pytest
from aiohttp.test_utils import TestServer

from libs.common.db import create_pool
from libs.contract.parts import ANALYTICS
from tests.analytics.fake_vendors import Script, vendor_environ, vendors_app
from tests.conftest import Client, Stack, TestDatabase, build_app
from tests.factories import IdentityFactory, eventually, unique
from tests.personas.conftest import Tenant, make_tenant


class Collector:
    """A tenant's answers: sent as a collector sends them, read back once analysed."""

    def __init__(self, tenant: Tenant) -> None:
        self.tenant = tenant

    def answer(self, text: str, **fields: Any) -> dict[str, Any]:
        return {
            "id": unique("answer"),
            "productId": self.tenant.product["id"],
            "prompt": "Best analytics tool for a startup?",
            "engine": "openai-search",
            "model": "gpt-4.1-mini",
            "text": text,
            "answeredAt": "2026-11-20T09:00:00Z",
            **fields,
        }

    async def send(self, text: str, **fields: Any) -> dict[str, Any]:
        status, answer = await self.tenant.call("POST", "/api/v1/answers", json=self.answer(text, **fields))
        assert status == 201, answer
        return answer["data"]

    async def analysed(self, answer_id: str) -> dict[str, Any]:
        """The answer once its analysis is stored."""
        found: dict[str, Any] = {}

        async def done() -> bool:
            status, answer = await self.tenant.call("GET", f"/api/v1/answers/{answer_id}")
            assert status == 200, answer
            found.update(answer["data"])
            return answer["data"]["analysis"] is not None

        await eventually(done)
        return found


async def branded(gateway: Client, identity: IdentityFactory) -> Tenant:
    """A tenant whose product is the brand Acme (acme.com) with competitors Globex and Notion."""
    tenant = await make_tenant(gateway, identity)
    status, answer = await tenant.call(
        "PATCH",
        f"/api/v1/products/{tenant.product['id']}",
        json={"brand": {"name": "Acme", "aliases": ["Acme Cloud"], "domains": ["acme.com"]}},
    )
    assert status == 200, answer
    for name, domains in (("Globex", ["globex.com"]), ("Notion", ["notion.so"])):
        status, answer = await tenant.call(
            "POST", f"/api/v1/products/{tenant.product['id']}/competitors", json={"name": name, "domains": domains}
        )
        assert status == 201, answer
    return tenant


@pytest.fixture
async def collector(gateway: Client, identity: IdentityFactory) -> Collector:
    return Collector(await branded(gateway, identity))


@pytest.fixture
async def stranger(gateway: Client, identity: IdentityFactory) -> Collector:
    return Collector(await branded(gateway, identity))


@pytest.fixture
async def analytics_pool(database: TestDatabase) -> AsyncIterator[aiopg.Pool]:
    """A pool on the analytics part's tables, to read what was stored."""
    async with create_pool(database.dsn(ANALYTICS), ANALYTICS.schema, 1, 2) as pool:
        yield pool


@dataclass
class Vendors:
    script: Script
    gateway: Client
    # The local vendor server's address.
    base_url: str


@pytest.fixture
async def vendors(stack: Stack) -> AsyncIterator[Vendors]:
    """A gateway whose analytics part calls the local vendor server, with every engine configured."""
    script = Script()
    vendor_server = TestServer(vendors_app(script))
    await vendor_server.start_server()
    base = str(vendor_server.make_url("")).rstrip("/")
    environ = stack.part_environ(ANALYTICS, **vendor_environ(base), SCHEDULE_INTERVAL_SECONDS="3600")
    analytics = TestServer(build_app(ANALYTICS, environ))
    await analytics.start_server()
    gateway = await stack.start_gateway({"ANALYTICS_URL": str(analytics.make_url("")).rstrip("/")})
    yield Vendors(script, gateway, base)
    for gate in script.held.values():  # a failed test's questions end
        gate.set()
    await gateway.close()
    await analytics.close()
    await vendor_server.close()
