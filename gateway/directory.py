"""Cached reads of the identity schema that credential and tenancy checks need per request.

Organizations, products and memberships change rarely; reading them from memory keeps the
request path free of database round trips. A stale entry lives at most DIRECTORY_TTL_SECONDS.
Malformed ids are answered as unknown without a query.
"""

from __future__ import annotations

from dataclasses import dataclass

import aiopg

from gateway import queries
from gateway.cache import TtlCache
from libs.common.db import cursor
from libs.common.internal_token import Organization, Product
from libs.common.validators import is_uuid

DIRECTORY_TTL_SECONDS = 30.0
MAX_ENTRIES = 100_000


@dataclass(frozen=True)
class OwnedProduct:
    organization_id: str
    product: Product


class Directory:
    def __init__(self, pool: aiopg.Pool) -> None:
        self._pool = pool
        self._organizations: TtlCache[Organization | None] = TtlCache(DIRECTORY_TTL_SECONDS, MAX_ENTRIES)
        self._products: TtlCache[OwnedProduct | None] = TtlCache(DIRECTORY_TTL_SECONDS, MAX_ENTRIES)
        self._roles: TtlCache[str | None] = TtlCache(DIRECTORY_TTL_SECONDS, MAX_ENTRIES)

    async def organization(self, organization_id: str) -> Organization | None:
        async def load() -> Organization | None:
            if not is_uuid(organization_id):
                return None
            async with cursor(self._pool) as cur:
                row = await queries.find_organization(cur, organization_id)
            return None if row is None else Organization(id=str(row["id"]), slug=row["slug"], name=row["name"])

        return await self._organizations.get_or_load(organization_id, load)

    async def product(self, product_id: str) -> OwnedProduct | None:
        """A live product and its organization; None for an unknown or deleted id."""

        async def load() -> OwnedProduct | None:
            if not is_uuid(product_id):
                return None
            async with cursor(self._pool) as cur:
                row = await queries.find_product(cur, product_id)
            if row is None:
                return None
            product = Product(id=str(row["id"]), name=row["name"], slug=row["slug"])
            return OwnedProduct(organization_id=str(row["organization_id"]), product=product)

        return await self._products.get_or_load(product_id, load)

    async def role(self, user_id: str, organization_id: str) -> str | None:
        """The user's role in the organization, or None when not a member."""

        async def load() -> str | None:
            if not (is_uuid(user_id) and is_uuid(organization_id)):
                return None
            async with cursor(self._pool) as cur:
                return await queries.find_membership_role(cur, user_id, organization_id)

        return await self._roles.get_or_load(f"{user_id}:{organization_id}", load)
