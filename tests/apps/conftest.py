"""Fixtures of the apps tests: a gateway in front of an apps service whose content service is a stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from libs.common.db import create_pool
from libs.contract.parts import APPS
from tests.apps.fake_dns import FakeDns, dns_environ, start_fake_dns
from tests.apps.support import Client, FakeContent, Tenant, base_url
from tests.conftest import Stack, TestDatabase, build_app
from tests.factories import AppsProducts, IdentityFactory


@pytest.fixture
async def content(stack: Stack, aiohttp_server: Any) -> FakeContent:
    fake = FakeContent(stack.environ["INTERNAL_TOKEN_SECRET"])
    fake.server = await aiohttp_server(fake.app())
    return fake


@pytest.fixture
async def dns() -> AsyncIterator[FakeDns]:
    server = await start_fake_dns()
    yield server
    server.close()


@pytest.fixture
async def api(stack: Stack, content: FakeContent, dns: FakeDns, aiohttp_server: Any) -> AsyncIterator[Client]:
    """A gateway whose apps service reads documents from `content` and DNS records from `dns`."""
    apps = build_app(APPS, stack.part_environ(APPS, CONTENT_URL=base_url(content.server), **dns_environ(dns)))
    server = await aiohttp_server(apps)
    client = await stack.start_gateway({"APPS_URL": base_url(server)})
    yield client
    await client.close()


async def make_tenant(api: Client, identity: IdentityFactory, apps_products: AppsProducts) -> Tenant:
    org = await identity.organization()
    product = await identity.product(org, "Handbook")
    await apps_products.until_known(product)
    return Tenant(api, org, product, await identity.api_key(org))


@pytest.fixture
async def tenant(api: Client, identity: IdentityFactory, apps_products: AppsProducts) -> Tenant:
    return await make_tenant(api, identity, apps_products)


@pytest.fixture
async def other_tenant(api: Client, identity: IdentityFactory, apps_products: AppsProducts) -> Tenant:
    return await make_tenant(api, identity, apps_products)


@pytest.fixture
async def apps_pool(database: TestDatabase) -> AsyncIterator[Any]:
    """A connection pool on the apps schema, as the apps service's own role."""
    async with create_pool(database.dsn(APPS), APPS.schema, 1, 4) as pool:
        yield pool
