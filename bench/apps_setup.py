"""What the apps benchmarks start from: an organization with a product, a key and an app, and
content pages of the product made through the public site-pages API."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import aiohttp

from bench.common import BenchStack
from gateway import product_queries
from gateway import queries as identity
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.contract.parts import APPS, GATEWAY
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import apps as app_queries

PAGES_PER_REQUEST = 25
CONCURRENT_WRITES = 8


async def organization_with_app(stack: BenchStack) -> tuple[str, str, str, str]:
    """An organization with a product, a key of every scope and an app serving the product:
    (key, org id, product id, app id)."""
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        organization = await identity.create_organization(cur, "bench", "Bench Organization")
        organization_id = str(organization["id"])
        product = await product_queries.create_product(cur, organization_id, "Bench Product", "bench-product")
        key, _ = await create_api_key(cur, organization_id, "bench", ALL_SCOPES)
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 2) as pool, transaction(pool) as cur:
        app = await app_queries.create_app(cur, organization_id, "Bench", "bench", {})
        await app_queries.create_resource(cur, organization_id, str(app["id"]), "product", str(product["id"]))
    return key, organization_id, str(product["id"]), str(app["id"])


async def verified_domain(stack: BenchStack, organization_id: str, app_id: str, hostname: str) -> None:
    """A web domain of the app, verified at creation as an operator's is (only a verified domain is an
    App's address)."""
    async with create_pool(stack.part_dsn(APPS), APPS.schema, 1, 1) as pool, transaction(pool) as cur:
        domain = {"scope": "app", "app_id": app_id, "domain": hostname, "type": "web"}
        await register_domain(cur, LocalEdgeProvider(), organization_id, domain)


async def create_pages(stack: BenchStack, key: str, product_id: str, count: int) -> list[dict[str, Any]]:
    """`count` pages of the product through POST /api/v1/site/pages; returns them as created."""
    created: list[dict[str, Any]] = []
    gate = asyncio.Semaphore(CONCURRENT_WRITES)
    url = f"{stack.url('gateway')}/api/v1/site/pages"

    async def create(session: aiohttp.ClientSession, first: int) -> None:
        pages = [
            {"slug": f"page-{index}", "title": f"Page {index}", "content": f"# Page {index}\n\n{uuid.uuid4()}"}
            for index in range(first, min(first + PAGES_PER_REQUEST, count))
        ]
        async with gate, session.post(url, json={"productId": product_id, "pages": pages}) as response:
            body = await response.json()
        if response.status >= 400 or body["data"]["failedCount"]:
            raise SystemExit(f"creating pages failed: {response.status} {body}")
        created.extend(body["data"]["created"])

    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        await asyncio.gather(*(create(session, first) for first in range(0, count, PAGES_PER_REQUEST)))
    return created
