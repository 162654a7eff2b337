"""Search fixtures: an indexer consuming the stack's content events, and helpers to call search.

The stack's search service runs with indexing off (tests/conftest.py), so only these tests
index. Each test's consumer group starts at the stream's end: it indexes the test's own writes,
not everything earlier tests published.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from libs.common.clients import ContentClient
from libs.common.events import content_events_stream
from libs.common.redis_client import create_redis
from libs.common.state import DB_POOL, HTTP
from libs.common.tasks import periodic
from services.search.app import shared_embedder
from services.search.indexer import EventConsumer, Indexer
from tests.conftest import REDIS_URL, Stack
from tests.factories import IdentityFactory, Org


@pytest.fixture
def indexer(stack: Stack) -> Indexer:
    """The index writer, bound to the stack's search database and content service."""
    app = stack.servers["search"].app
    return Indexer(app[DB_POOL], ContentClient(app[HTTP], stack.environ["CONTENT_URL"]), shared_embedder())


@pytest.fixture
async def indexing(stack: Stack, indexer: Indexer) -> AsyncIterator[EventConsumer]:
    """Content events indexed as they come, as the search service does in production."""
    redis = create_redis(REDIS_URL)
    stream = content_events_stream(stack.environ["REDIS_PREFIX"])
    consumer = EventConsumer(redis, stream, indexer, group=f"test-{uuid.uuid4().hex[:8]}", start="$")
    await consumer.ensure_group()
    async with periodic(0.0, consumer.step, "test-indexer"):
        yield consumer
    indexer.close()
    await redis.aclose()


@dataclass
class Searcher:
    """Search through the gateway as an organization's API key."""

    gateway: Any
    org: Org
    headers: dict[str, str]

    async def raw(self, body: Any, org_id: str | None = None) -> tuple[int, dict[str, Any]]:
        response = await self.gateway.post(
            f"/api/v1/content/search/{org_id or self.org.id}", json=body, headers=self.headers
        )
        return response.status, await response.json()

    async def search(self, query: str, **options: Any) -> dict[str, Any]:
        status, body = await self.raw({"query": query, **options})
        assert status == 200, body
        assert body["ok"] is True
        data: dict[str, Any] = body["data"]
        return data

    async def ids(self, query: str, **options: Any) -> list[str]:
        data = await self.search(query, **options)
        ids: list[str] = data["ids"][0]
        return ids


@pytest.fixture
async def tenant(gateway: Any, identity: IdentityFactory) -> tuple[Searcher, dict[str, Any]]:
    """An organization with one product, and a searcher with its API key."""
    org = await identity.organization()
    product = await identity.product(org, "Handbook")
    return Searcher(gateway, org, {"x-api-key": await identity.api_key(org)}), product
