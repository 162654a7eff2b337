"""Fixtures of the edge's tests: an App built through the gateway (product, verified domains,
routes to content documents), and requests to the stack's edge as a browser or an agent sends them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from yarl import URL

from tests.conftest import Stack
from tests.factories import AppsProducts, ContentFactory, DomainFactory, IdentityFactory, Org, unique
from tests.integration.support import call, item


@dataclass
class Edge:
    """Requests to an edge server, the path sent exactly as written."""

    session: aiohttp.ClientSession
    base: str

    async def get(
        self, host: str | None, path: str, headers: dict[str, str] | None = None, method: str = "GET", **kwargs: Any
    ) -> aiohttp.ClientResponse:
        sent = {**({"Host": host} if host is not None else {}), **(headers or {})}
        skip = () if host is not None else ("Host",)
        url = URL(self.base + path, encoded=True)
        response = await self.session.request(
            method, url, headers=sent, allow_redirects=False, skip_auto_headers=skip, **kwargs
        )
        await response.read()
        return response


def edge_url(stack: Stack) -> str:
    return stack.environ["EDGE_URL"]


@pytest.fixture
async def edge(stack: Stack) -> AsyncIterator[Edge]:
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        yield Edge(session, edge_url(stack))


@dataclass
class App:
    """An App of one product with a verified web domain, built through the gateway."""

    gateway: Any
    org: Org
    product: dict[str, Any]
    headers: dict[str, str]
    record: dict[str, Any]
    hostname: str
    domains: DomainFactory
    content: ContentFactory

    @property
    def id(self) -> str:
        app_id: str = self.record["id"]
        return app_id

    @property
    def base(self) -> str:
        return f"/api/v1/apps/{self.id}"

    async def document(self, slug: str | None = None, **columns: Any) -> dict[str, Any]:
        return await self.content.document(self.org, self.product, slug, **{"status": "published", **columns})

    async def route(self, path: str, document: dict[str, Any]) -> dict[str, Any]:
        status, body = await call(
            self.gateway, "POST", f"{self.base}/routes/batch", self.headers, json={"routes": [item(path, document)]}
        )
        assert status == 200, body
        route: dict[str, Any] = body["data"]["routes"][0]
        return route

    async def page(self, path: str, **columns: Any) -> dict[str, Any]:
        """A published document routed at `path`."""
        document = await self.document(**columns)
        await self.route(path, document)
        return document

    async def domain(self, hostname: str | None = None, **columns: Any) -> str:
        """Another verified domain of the App."""
        made = await self.domains.create(self.org, hostname or unique("docs") + ".example.com", self.id, **columns)
        name: str = made["domain"]
        return name

    async def configure(self, config: dict[str, Any]) -> None:
        status, body = await call(
            self.gateway, "PATCH", f"{self.base}/app-config", self.headers, json={"config": config}
        )
        assert status == 200, body


class Apps:
    def __init__(
        self,
        gateway: Any,
        identity: IdentityFactory,
        apps_products: AppsProducts,
        domains: DomainFactory,
        content: ContentFactory,
    ) -> None:
        self.gateway, self.identity, self.apps_products = gateway, identity, apps_products
        self.domains, self.content = domains, content

    async def new(self, org: Org | None = None, name: str = "Acme Docs", **metadata: Any) -> App:
        org = org or await self.identity.organization()
        product = await self.identity.product(org, "Widget")
        await self.apps_products.until_known(product)
        headers = {"x-api-key": await self.identity.api_key(org)}
        created = {"name": name, "metadata": metadata}
        status, body = await call(self.gateway, "POST", "/api/v1/apps", headers, json=created)
        assert status == 201, body
        record = body["data"]
        status, body = await call(
            self.gateway, "POST", f"/api/v1/apps/{record['id']}/resources", headers, json={"resourceId": product["id"]}
        )
        assert status == 201, body
        app = App(self.gateway, org, product, headers, record, "", self.domains, self.content)
        app.hostname = await app.domain()
        return app


@pytest.fixture
def apps(
    gateway: Any,
    identity: IdentityFactory,
    apps_products: AppsProducts,
    domains: DomainFactory,
    content: ContentFactory,
) -> Apps:
    return Apps(gateway, identity, apps_products, domains, content)
