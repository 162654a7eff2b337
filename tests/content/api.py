"""Calling the public API through the gateway as one organization's API key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp.test_utils import TestClient
from multidict import CIMultiDictProxy

from tests.factories import IdentityFactory, Org

PAGES = "/api/v1/site/pages"


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: CIMultiDictProxy[str]

    @property
    def data(self) -> Any:
        assert self.body["ok"] is True, self.body
        return self.body["data"]


@dataclass
class Tenant:
    """An organization with a product and an API key of every scope, talking to the gateway."""

    gateway: TestClient
    org: Org
    product: dict[str, Any]
    key: str

    @classmethod
    async def create(cls, gateway: TestClient, identity: IdentityFactory) -> Tenant:
        org = await identity.organization()
        return cls(gateway, org, await identity.product(org), await identity.api_key(org))

    async def call(
        self, method: str, path: str, json: Any = None, params: Any = None, headers: dict[str, str] | None = None
    ) -> Answer:
        """The answer; `body` None for one without a body (a 304)."""
        async with self.gateway.request(
            method, path, json=json, params=params, headers={"x-api-key": self.key, **(headers or {})}
        ) as response:
            body = await response.json() if await response.read() else None
            return Answer(response.status, body, response.headers)

    @property
    def scope(self) -> dict[str, Any]:
        organization = {"id": self.org.id, "name": self.org.name, "slug": self.org.slug}
        return {"product": self.product, "organization": organization}

    async def list_pages(self, **params: Any) -> Answer:
        return await self.call("GET", PAGES, params={"productId": self.product["id"], **params})

    async def create_pages(self, *pages: dict[str, Any]) -> Answer:
        return await self.call("POST", PAGES, {"productId": self.product["id"], "pages": list(pages)})

    async def create_page(self, slug: str, **fields: Any) -> dict[str, Any]:
        """One page created through the API; returns its `created` entry."""
        answer = await self.create_pages({"slug": slug, "title": fields.pop("title", slug), **fields})
        assert answer.data["failed"] == [], answer.data
        created: dict[str, Any] = answer.data["created"][0]
        return created

    async def update_pages(self, *pages: dict[str, Any]) -> Answer:
        return await self.call("PATCH", PAGES, {"productId": self.product["id"], "pages": list(pages)})

    async def delete_pages(self, *page_ids: str) -> Answer:
        return await self.call("DELETE", PAGES, {"productId": self.product["id"], "pageIds": list(page_ids)})

    async def document(self, document_id: str) -> Answer:
        return await self.call("GET", f"/api/v1/content/{document_id}")
