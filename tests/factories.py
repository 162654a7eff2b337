"""Small builders of test data, going through the product's own code wherever it exists."""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import aiopg
import redis.asyncio as aioredis
from aiohttp.test_utils import TestServer

from gateway import product_queries, queries
from gateway.identity.auth import key_queries
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.passwords import hash_password
from gateway.identity.auth.scopes import ALL_SCOPES
from gateway.identity.auth.sessions import open_session
from gateway.identity.auth.tokens import TokenSigner
from gateway.settings import DEVELOPMENT_ISSUER
from libs.common.db import cursor, fetch_one, transaction
from libs.common.internal_token import HEADER, mint, service_caller
from libs.contract import internal
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import apps as app_queries


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 10.0) -> float:
    """Poll `check` until it holds; returns the seconds it took. Fails after `within` seconds."""
    started = time.monotonic()
    while not await check():
        if time.monotonic() - started > within:
            raise AssertionError(f"not true within {within}s")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def waiting_on_a_lock(pool: aiopg.Pool, statement: str = "") -> None:
    """Wait until a session of this database is waiting on a lock (in a statement containing
    `statement`, when given): another transaction holds a row it needs."""

    async def waits() -> bool:
        async with cursor(pool) as cur:
            await cur.execute(
                "SELECT FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                " AND position(%s IN query) > 0",
                (statement,),
            )
            return cur.rowcount > 0

    await eventually(waits, within=5)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@dataclass(frozen=True)
class Org:
    id: str
    slug: str
    name: str


class IdentityFactory:
    def __init__(self, pool: aiopg.Pool, redis: aioredis.Redis, jwt_private_key: str) -> None:
        self.pool = pool
        self.redis = redis
        self.signer = TokenSigner(jwt_private_key, DEVELOPMENT_ISSUER, "aivis-api")  # the test gateways' issuer

    async def organization(self) -> Org:
        slug = unique("org")
        async with transaction(self.pool) as cur:
            row = await queries.create_organization(cur, slug, f"Org {slug}")
        return Org(str(row["id"]), row["slug"], row["name"])

    async def product(self, org: Org, name: str = "Product") -> dict[str, Any]:
        async with transaction(self.pool) as cur:
            row = await product_queries.create_product(cur, org.id, name, unique("product"))
        return {"id": str(row["id"]), "name": row["name"], "slug": row["slug"]}

    async def delete_product(self, org: Org, product_id: str) -> None:
        async with transaction(self.pool) as cur:
            await product_queries.delete_product(cur, org.id, product_id)

    async def api_key(self, org: Org, scopes: frozenset[str] = ALL_SCOPES, **kwargs: Any) -> str:
        async with transaction(self.pool) as cur:
            key, _ = await create_api_key(cur, org.id, "test key", scopes, **kwargs)
        return key

    async def revoke(self, key_prefix: str) -> None:
        async with transaction(self.pool) as cur:
            await key_queries.revoke_api_key(cur, key_prefix)

    async def user(self, org: Org, role: str = "owner") -> str:
        async with transaction(self.pool) as cur:
            user = await queries.create_user(cur, f"{unique('user')}@example.com", "Test User")
            await queries.upsert_membership(cur, user["id"], org.id, role)
        return str(user["id"])

    async def account(self, *memberships: tuple[Org, str]) -> tuple[str, str]:
        """A user who signs in with a password (email, password), a member of each (org, role)."""
        email, password = f"{unique('person')}@example.com", secrets.token_urlsafe(12)
        async with transaction(self.pool) as cur:
            user = await queries.create_user(cur, email, "Dana Example")
            await queries.set_password_hash(cur, user["id"], hash_password(password))
            for org, role in memberships:
                await queries.upsert_membership(cur, user["id"], org.id, role)
        return email, password

    def bearer(self, user_id: str, org: Org, scopes: frozenset[str] = ALL_SCOPES, ttl: int = 600) -> str:
        return self.signer.mint(user_id, org.id, scopes, ttl)

    async def session(self, user_id: str, org: Org) -> str:
        """A dashboard session of the user in the organization; returns the cookie value."""
        return await open_session(self.redis, user_id, org.id, max_age=600)


class SimulationFactory:
    """Records tasks, environments and runs through the simulations service's internal intake."""

    def __init__(self, server: TestServer, token_secret: str) -> None:
        self.server = server
        self.token_secret = token_secret

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        headers = {HEADER: mint(self.token_secret, service_caller("simulation-runner"))}
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.server.make_url(path), json=body, headers=headers) as response,
        ):
            return response.status, await response.json()

    async def environment(self, org: Org, name: str = "env") -> dict[str, Any]:
        status, task = await self.post(
            internal.TASKS_CREATE.path, {"organizationId": org.id, "name": "task", "category": "web"}
        )
        assert status == 201, task
        status, environment = await self.post(
            internal.ENVIRONMENTS_CREATE.path,
            {"organizationId": org.id, "taskId": task["id"], "name": name, "agentConfig": {"model": "m"}},
        )
        assert status == 201, environment
        return environment

    async def run(self, org: Org, environment: dict[str, Any], **fields: Any) -> dict[str, Any]:
        body = {
            "organizationId": org.id,
            "environmentId": environment["id"],
            "taskId": environment["task"]["id"],
            "status": "completed",
            **fields,
        }
        status, run = await self.post(internal.RUNS_CREATE.path, body)
        assert status == 201, run
        return run


class AppsProducts:
    """The apps service's copy of the products (kept from the gateway's product events)."""

    def __init__(self, pool: aiopg.Pool) -> None:
        self.pool = pool

    async def row(self, product_id: str) -> dict[str, Any] | None:
        async with cursor(self.pool) as cur:
            return await fetch_one(
                cur,
                "SELECT id::text, organization_id::text, name, slug, deleted_at, version FROM products WHERE id = %s",
                (product_id,),
            )

    async def until(self, product_id: str, holds: Callable[[dict[str, Any] | None], bool]) -> dict[str, Any] | None:
        """Wait until the apps service's row of the product satisfies `holds`; returns it."""
        found: list[dict[str, Any] | None] = [None]

        async def check() -> bool:
            found[0] = await self.row(product_id)
            return holds(found[0])

        await eventually(check)
        return found[0]

    async def until_known(self, *products: dict[str, Any]) -> None:
        """Wait until the apps service knows each product as it is now (a `{id, name, slug}`)."""
        for product in products:
            await self.until(
                product["id"],
                lambda row, product=product: (
                    row is not None and (row["name"], row["slug"]) == (product["name"], product["slug"])
                ),
            )


class DomainFactory:
    """Live domains, stored through the apps service's own code (an app is made when none is given)."""

    def __init__(self, pool: aiopg.Pool) -> None:
        self.pool = pool

    async def create(
        self, org: Org, hostname: str | None = None, app_id: str | None = None, **columns: Any
    ) -> dict[str, Any]:
        """A verified domain (`columns` may set its `type` and `origin`)."""
        async with transaction(self.pool) as cur:
            if app_id is None:
                app = await app_queries.create_app(cur, org.id, "Site", unique("site"), {})
                app_id = app["id"]
            values = {"scope": "app", "app_id": app_id, "domain": hostname or f"{unique('site')}.example.com"}
            domain = await register_domain(cur, LocalEdgeProvider(), org.id, {"type": "web", **values, **columns})
        return {"id": str(domain["id"]), "domain": domain["domain"]}

    async def verify(self, hostname: str) -> None:
        """Mark the live claim on `hostname` verified, as a found TXT record does (the suite's shared stack
        asks no DNS server of its own)."""
        async with transaction(self.pool) as cur:
            await cur.execute(
                "UPDATE domains SET verified_at = clock_timestamp(), expires_at = NULL, updated_at = clock_timestamp()"
                " WHERE domain = %s AND deleted_at IS NULL AND released_at IS NULL AND verified_at IS NULL",
                (hostname,),
            )
            assert cur.rowcount == 1, f"no unverified claim on {hostname}"


class ContentFactory:
    """Content documents, stored through the content service's own write path (outbox included)."""

    def __init__(self, pool: aiopg.Pool) -> None:
        self.pool = pool

    async def document(
        self, org: Org, product: dict[str, Any], slug: str | None = None, **columns: Any
    ) -> dict[str, Any]:
        from services.content import editing
        from services.content.domains import DomainChange

        values = {"title": "A page", **columns}
        async with transaction(self.pool) as cur:
            row = await editing.create_document(
                cur, org.id, product["id"], slug or unique("page"), values, DomainChange(), {}
            )
        return {**row, "id": str(row["id"])}

    async def delete(self, org: Org, product: dict[str, Any], document_id: str) -> None:
        from services.content import editing

        async with transaction(self.pool) as cur:
            await editing.delete_document(cur, org.id, product["id"], document_id)
