"""Calling the content service directly, as another part does, with an internal token."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from libs.common.internal_token import HEADER, Organization, mint, service_caller
from tests.conftest import Stack
from tests.content.api import Tenant
from tests.factories import IdentityFactory, Org


@dataclass
class ServiceClient:
    stack: Stack
    service: str

    async def call(self, method: str, path: str, org: Org | None, json: Any = None) -> tuple[int, Any]:
        organization = None if org is None else Organization(org.id, org.slug, org.name)
        token = mint(self.stack.environ["INTERNAL_TOKEN_SECRET"], service_caller("tests", organization))
        url = self.stack.servers[self.service].make_url(path)
        async with (
            aiohttp.ClientSession() as session,
            session.request(method, url, json=json, headers={HEADER: token}) as response,
        ):
            return response.status, await response.json()


@pytest.fixture
def content_service(stack: Stack) -> ServiceClient:
    return ServiceClient(stack, "content")


@pytest.fixture
async def tenant(gateway, identity: IdentityFactory) -> Tenant:
    return await Tenant.create(gateway, identity)


@pytest.fixture
async def stranger(gateway, identity: IdentityFactory) -> Tenant:
    """Another organization, with its own product and key."""
    return await Tenant.create(gateway, identity)
