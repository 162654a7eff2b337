"""Fixtures of the apps tests: a gateway in front of an apps service whose content service is a stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from libs.common.db import create_pool
from libs.contract.parts import APPS
from tests.apps.fake_dns import FakeDns, dns_environ, start_fake_dns
from tests.apps.support import Client, FakeContent, Tenant, base_url
from tests.conftest import Stack, TestDatabase, build_app
from tests.factories import AppsProducts, IdentityFactory


@pytest.fixture(scope="module")
async def apps_fakes(shared_stack: Stack) -> AsyncIterator[tuple[FakeContent, FakeDns, Client]]:
    """A gateway whose apps service reads documents from a stand-in content service and DNS records
    from a DNS server on loopback: started once for the tests of a module, which isolate by
    organization and by hostname."""
    content = FakeContent(shared_stack.environ["INTERNAL_TOKEN_SECRET"])
    content.server = TestServer(content.app())
    await content.server.start_server()
    dns = await start_fake_dns()
    environ = shared_stack.part_environ(APPS, CONTENT_URL=base_url(content.server), **dns_environ(dns))
    apps = TestServer(build_app(APPS, environ))
    await apps.start_server()
    client = await shared_stack.start_gateway({"APPS_URL": base_url(apps)})
    yield content, dns, client
    await client.close()
    await apps.close()
    dns.close()
    await content.server.close()


@pytest.fixture
def content(stack: Stack, apps_fakes: tuple[FakeContent, FakeDns, Client]) -> FakeContent:
    """The stand-in content service, as a test of its own finds it: no documents, no failures set."""
    fake = apps_fakes[0]
    fake.reset()
    return fake


@pytest.fixture
def dns(apps_fakes: tuple[FakeContent, FakeDns, Client]) -> FakeDns:
    """The DNS server, with no records and no questions of an earlier test."""
    server = apps_fakes[1]
    server.reset()
    return server


@pytest.fixture
def api(content: FakeContent, dns: FakeDns, apps_fakes: tuple[FakeContent, FakeDns, Client]) -> Client:
    """A gateway whose apps service reads documents from `content` and DNS records from `dns`."""
    return apps_fakes[2]


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
