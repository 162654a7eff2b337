"""Helpers of the apps tests: a stand-in content service, a tenant calling through the gateway, shape checks."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from marshmallow import Schema

from libs.common.encoding import dumps, json_response
from libs.common.middlewares import internal_auth_middleware
from libs.common.state import caller_of
from tests.factories import Org

Client = TestClient[web.Request, web.Application]


def base_url(server: TestServer) -> str:
    return f"http://{server.host}:{server.port}"


def assert_shape(schema: type[Schema], data: Any, many: bool = False) -> None:
    """`data` has exactly the fields of `schema`, with their types (unknown fields are errors)."""
    assert schema().validate(data, many=many) == {}


@dataclass
class FakeContent:
    """The content service's internal endpoints (docs/architecture.md), over documents a test adds.

    A real HTTP server checking the internal token, so the apps service meets it as it meets the
    real one: only the calling organization's documents are ever answered.
    """

    token_secret: str
    documents: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    server: TestServer | None = None
    # Reads of targets answered before the next ones fail (None: they never do).
    reads_before_failing: int | None = None
    # When set, a lookup signals `lookup_waiting` and answers only once this is set.
    lookup_released: asyncio.Event | None = None
    lookup_waiting: asyncio.Event = field(default_factory=asyncio.Event)
    # Withdrawn domains the apps service announced: (organization id, domain id) in order.
    withdrawn: list[tuple[str, str]] = field(default_factory=list)
    # Announcements of withdrawn domains answered 503 (and not taken) before the next ones are taken.
    withdrawals_failing: int = 0

    def reset(self) -> None:
        """No documents and no failures set: as a test of its own finds it."""
        fresh = FakeContent(self.token_secret)
        knobs = ("documents", "reads_before_failing", "lookup_released", "lookup_waiting", "withdrawn")
        for name in (*knobs, "withdrawals_failing"):
            setattr(self, name, getattr(fresh, name))

    def add(self, org: Org, product: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """A live document of `product`, returned as its route target."""
        document_id = str(uuid.uuid4())
        target = {
            "id": document_id,
            "title": f"Document {document_id[:8]}",
            "filePath": f"docs/{document_id[:8]}",
            "sourceUrl": f"https://example.com/docs/{document_id[:8]}",
            "status": "published",
            "type": "page",
            "redirectToUrl": None,
            "productId": product["id"],
            **fields,
        }
        self.documents[document_id] = (org.id, target)
        return target

    def app(self) -> web.Application:
        app = web.Application(middlewares=[internal_auth_middleware(self.token_secret, ("/internal/",))])
        app.router.add_post("/internal/documents/lookup", self.lookup)
        app.router.add_get("/internal/targets", self.targets)
        app.router.add_post("/internal/targets/count", self.count)
        app.router.add_get("/internal/documents/last-change", self.last_change)
        app.router.add_post("/internal/domains/withdrawn", self.domains_withdrawn)
        return app

    async def domains_withdrawn(self, request: web.Request) -> web.Response:
        ids = (await request.json())["ids"]
        if self.withdrawals_failing > 0:
            self.withdrawals_failing -= 1
            return json_response({"message": "unavailable"}, status=503)
        self.withdrawn += [(caller_of(request).org.id, domain_id) for domain_id in ids]
        return json_response({"documents": 0})

    def _visible(self, request: web.Request) -> list[dict[str, Any]]:
        organization_id = caller_of(request).org.id
        return [target for owner, target in self.documents.values() if owner == organization_id]

    async def lookup(self, request: web.Request) -> web.Response:
        ids = set((await request.json())["ids"])
        if self.lookup_released is not None:
            self.lookup_waiting.set()
            await self.lookup_released.wait()
        return json_response({"documents": [target for target in self._visible(request) if target["id"] in ids]})

    def _of(self, request: web.Request, product_ids: list[str], status: str) -> list[dict[str, Any]]:
        """The products' documents with `status`, in path order and then id, as the content service orders them."""
        chosen = [t for t in self._visible(request) if t["productId"] in product_ids and t["status"] == status]
        return sorted(chosen, key=_position)

    async def targets(self, request: web.Request) -> web.Response:
        if self.reads_before_failing is not None:
            if self.reads_before_failing == 0:
                raise web.HTTPInternalServerError()
            self.reads_before_failing -= 1
        query = request.query
        documents = self._of(request, query.getall("productId"), query["status"])
        if "afterId" in query:
            documents = [t for t in documents if _position(t) > (query["afterPath"], query["afterId"])]
        return json_response({"documents": documents[: int(query["limit"])]})

    async def count(self, request: web.Request) -> web.Response:
        body = await request.json()
        documents = self._of(request, body["productIds"], body["status"])
        if "ids" in body:
            documents = [t for t in documents if t["id"] in body["ids"]]
        return json_response({"count": len(documents)})

    async def last_change(self, request: web.Request) -> web.Response:
        """A digest of the organization's documents where the real service answers the time of the
        latest change: both change whenever a document is added, changed or removed."""
        visible = sorted(self._visible(request), key=lambda target: target["id"])
        return json_response({"lastChangedAt": hashlib.sha256(dumps(visible)).hexdigest() if visible else None})


def _position(target: dict[str, Any]) -> tuple[str, str]:
    return target["filePath"] or "", target["id"]


@dataclass
class Tenant:
    """One organization with a product and an API key of every scope, calling through the gateway."""

    client: Client
    org: Org
    product: dict[str, Any]
    key: str

    async def call(self, method: str, path: str, json: Any = None, **params: str) -> tuple[int, Any]:
        response = await self.client.request(method, path, json=json, params=params, headers={"x-api-key": self.key})
        return response.status, await response.json()

    async def get(self, path: str, **params: str) -> tuple[int, Any]:
        return await self.call("GET", path, **params)

    async def post(self, path: str, json: Any) -> tuple[int, Any]:
        return await self.call("POST", path, json)

    async def patch(self, path: str, json: Any) -> tuple[int, Any]:
        return await self.call("PATCH", path, json)

    async def delete(self, path: str) -> tuple[int, Any]:
        return await self.call("DELETE", path)

    async def create_app(self, **body: Any) -> dict[str, Any]:
        status, answer = await self.post("/api/v1/apps", {"name": "Docs site", **body})
        assert status == 201, answer
        app: dict[str, Any] = answer["data"]
        return app

    async def create_app_of(self, *products: dict[str, Any]) -> dict[str, Any]:
        """A new app with `products` (the tenant's own product when none is given) as its resources."""
        app = await self.create_app()
        for product in products or (self.product,):
            status, answer = await self.post(f"/api/v1/apps/{app['id']}/resources", {"resourceId": product["id"]})
            assert status == 201, answer
        return app


def route(path: str, target: dict[str, Any]) -> dict[str, str]:
    """An import item routing `path` to the document `target`."""
    return {"path": path, "targetId": target["id"], "targetType": "product_document"}


def routes_of(app: dict[str, Any]) -> str:
    return f"/api/v1/apps/{app['id']}/routes"
