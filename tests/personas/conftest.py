"""Fixtures of the personas tests: tenants calling through the gateway, the stored rows, and a
personas service started with another suggestion generator."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiopg
import pytest
from aiohttp.test_utils import TestServer

from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, cursor, fetch_all, fetch_one
from libs.contract.parts import PERSONAS
from services.personas.generator import SuggestionGenerator
from services.personas.state import GENERATOR
from tests.conftest import Client, Stack, TestDatabase, build_app
from tests.factories import IdentityFactory, Org, unique


@dataclass
class Tenant:
    """An organization with a product and an API key, calling the API through a gateway."""

    gateway: Client
    org: Org
    product: dict[str, Any]
    key: str

    async def call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        headers = {"x-api-key": self.key, **kwargs.pop("headers", {})}
        async with self.gateway.request(method, path, headers=headers, **kwargs) as response:
            return response.status, await response.json()

    async def with_scopes(self, identity: IdentityFactory, scopes: frozenset[str]) -> Tenant:
        """The same organization and product, through a key with only `scopes`."""
        return Tenant(self.gateway, self.org, self.product, await identity.api_key(self.org, scopes))

    def on(self, gateway: Client) -> Tenant:
        """The same tenant calling through another gateway."""
        return Tenant(gateway, self.org, self.product, self.key)

    async def persona(self, name: str | None = None, **fields: Any) -> dict[str, Any]:
        body = {"name": name or unique("persona"), "description": "Buys software for a team.", **fields}
        status, answer = await self.call("POST", f"/api/v1/products/{self.product['id']}/personas", json=body)
        assert status == 201, answer
        return answer["data"]

    async def topic(self, name: str | None = None, **fields: Any) -> dict[str, Any]:
        body = {"name": name or unique("topic"), **fields}
        status, answer = await self.call("POST", f"/api/v1/products/{self.product['id']}/topics", json=body)
        assert status == 201, answer
        return answer["data"]

    async def regenerate(self) -> tuple[int, Any]:
        return await self.call("POST", "/api/v1/prompt-suggestions/regenerate", json={"productId": self.product["id"]})

    async def suggestions(self, **params: Any) -> list[dict[str, Any]]:
        query = {"productId": self.product["id"], "limit": "200", **params}
        status, answer = await self.call("GET", "/api/v1/prompt-suggestions", params=query)
        assert status == 200, answer
        return answer["data"]["suggestions"]


async def make_tenant(gateway: Client, identity: IdentityFactory, scopes: frozenset[str] = ALL_SCOPES) -> Tenant:
    org = await identity.organization()
    product = await identity.product(org, name="Acme Analytics")
    return Tenant(gateway, org, product, await identity.api_key(org, scopes))


@pytest.fixture
async def tenant(gateway: Client, identity: IdentityFactory) -> Tenant:
    return await make_tenant(gateway, identity)


@pytest.fixture
async def stranger(gateway: Client, identity: IdentityFactory) -> Tenant:
    """Another organization, to show that nothing of `tenant` reaches it."""
    return await make_tenant(gateway, identity)


def plain(row: dict[str, Any]) -> dict[str, Any]:
    """A row with its UUIDs as the strings the API answers."""
    return {key: str(value) if isinstance(value, uuid.UUID) else value for key, value in row.items()}


@dataclass
class Stored:
    """Reads of the personas schema, to check what a write really stored."""

    pool: aiopg.Pool

    async def row(self, table: str, row_id: str) -> dict[str, Any] | None:
        async with cursor(self.pool) as cur:
            row = await fetch_one(cur, f"SELECT * FROM {table} WHERE id = %s", (row_id,))
        return None if row is None else plain(row)

    async def suggestions(self, product_id: str) -> list[dict[str, Any]]:
        """Every suggestion row of the product, deleted ones included, in creation order."""
        async with cursor(self.pool) as cur:
            rows = await fetch_all(
                cur, "SELECT * FROM prompt_suggestions WHERE product_id = %s ORDER BY created_at, id", (product_id,)
            )
        return [plain(row) for row in rows]


@pytest.fixture
async def stored(database: TestDatabase) -> AsyncIterator[Stored]:
    async with create_pool(database.dsn(PERSONAS), PERSONAS.schema, 1, 2) as pool:
        yield Stored(pool)


StartWithGenerator = Callable[[SuggestionGenerator], Awaitable[Client]]


@pytest.fixture
async def gateway_with_generator(stack: Stack) -> AsyncIterator[StartWithGenerator]:
    """A gateway whose personas service regenerates with the given generator."""
    started: list[tuple[TestServer, Client]] = []

    async def start(generator: SuggestionGenerator) -> Client:
        app = build_app(PERSONAS, stack.part_environ(PERSONAS))
        app[GENERATOR] = generator
        server = TestServer(app)
        await server.start_server()
        gateway = await stack.start_gateway({"PERSONAS_URL": str(server.make_url("")).rstrip("/")})
        started.append((server, gateway))
        return gateway

    yield start
    for server, gateway in started:
        await gateway.close()
        await server.close()
