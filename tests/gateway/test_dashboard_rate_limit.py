"""The dashboard's calls to the API pass the same stages as a client's request (gateway/edge/proxy.py,
`admit`): the same rate limit, whose 429 carries the same `RateLimit-*` headers, and the same scope
check, whose 403 says the same thing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.conftest import Client, Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import api, page, signed_in


@pytest.fixture
async def limited(stack: Stack) -> AsyncIterator[Client]:
    client = await stack.start_gateway({"RATE_LIMIT_BURST": "2", "RATE_LIMIT_PER_MINUTE": "6"})
    yield client
    await client.close()


async def test_a_page_over_the_limit_is_a_429_with_the_apis_headers(limited: Client, identity: IdentityFactory):
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    await signed_in(limited, email, password)
    statuses = []
    for _ in range(4):  # the organization's page calls the API at least once
        response = await limited.get(f"/{org.slug}/runs", allow_redirects=False)
        statuses.append(response.status)
        if response.status == 429:
            break
    assert statuses[0] == 200 and statuses[-1] == 429, statuses
    assert response.headers["RateLimit-Limit"] == "2"
    assert response.headers["RateLimit-Remaining"] == "0"
    # One token at 6 a minute: at most 10 s, less by the time the pages before it took.
    assert 0 < int(response.headers["Retry-After"]) <= 10
    assert "Too many attempts" in await response.text()


async def test_a_page_the_role_cannot_use_says_what_the_apis_403_says(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    app = await api(stack.gateway, key, "POST", "/api/v1/apps", json={"name": "Site"})
    read_only = await identity.api_key(org, frozenset({"content:read"}))
    refused = await stack.gateway.delete(f"/api/v1/apps/{app['id']}", headers={"x-api-key": read_only})
    assert refused.status == 403
    message = (await refused.json())["message"]
    assert message == "this credential lacks the scope content:write"

    viewer = await signed_in(stack.gateway, *await identity.account((org, "viewer")))
    assert message in await page(viewer, f"/{org.slug}/apps/{app['id']}/delete", 403)
    assert message in await page(viewer, f"/{org.slug}/apps/{app['id']}/routes/none/edit", 403)
