"""An App that publishes for agents, built through the gateway: its product, a web domain and routes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from aiohttp import ClientResponse

from tests.factories import DomainFactory
from tests.integration.support import call, item


@dataclass
class Site:
    gateway: Any
    headers: dict[str, str]
    app: dict[str, Any]
    domain: str
    # Proves the domains the App claims (only a verified domain is an App's address).
    domains: DomainFactory

    @property
    def base(self) -> str:
        return f"/api/v1/apps/{self.app['id']}"

    async def get(self, tail: str, headers: dict[str, str] | None = None, **params: str) -> ClientResponse:
        response: ClientResponse = await self.gateway.get(
            self.base + tail, headers={**self.headers, **(headers or {})}, params=params
        )
        await response.read()
        return response

    async def route(self, **paths: dict[str, Any]) -> list[dict[str, Any]]:
        """Route each path (keyword: the path without its leading slash, `__` for `/`) to its document."""
        items = [item("/" + name.replace("__", "/"), document) for name, document in paths.items()]
        return await self.route_items(items)

    async def route_items(self, items: list[dict[str, str]]) -> list[dict[str, Any]]:
        status, body = await call(
            self.gateway, "POST", f"{self.base}/routes/batch", self.headers, json={"routes": items}
        )
        assert status == 200, body
        routes: list[dict[str, Any]] = body["data"]["routes"]
        return routes

    async def add_domain(self, hostname: str | None = None, verified: bool = True) -> str:
        """A web domain claimed through the API, then verified unless asked not to."""
        hostname = hostname or f"docs-{uuid.uuid4().hex[:10]}.example.com"
        status, body = await call(
            self.gateway, "POST", f"{self.base}/domains", self.headers, json={"domain": hostname, "type": "web"}
        )
        assert status == 201, body
        if verified:
            await self.domains.verify(hostname)
        return hostname


async def new_site(
    gateway: Any,
    headers: dict[str, str],
    domains: DomainFactory,
    *products: dict[str, Any],
    name: str = "Acme Docs",
    **metadata: Any,
) -> Site:
    """A new App of `products` with `metadata` and one verified web domain."""
    status, body = await call(gateway, "POST", "/api/v1/apps", headers, json={"name": name, "metadata": metadata})
    assert status == 201, body
    site = Site(gateway, headers, body["data"], "", domains)
    for product in products:
        status, body = await call(
            gateway, "POST", f"{site.base}/resources", headers, json={"resourceId": product["id"]}
        )
        assert status == 201, body
    site.domain = await site.add_domain()
    return site
