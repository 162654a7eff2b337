"""Cached reads of the identity schema that credential and tenancy checks need per request.

Organizations, products and memberships change rarely; reading them from memory keeps the
request path free of database round trips. Every change of one is recorded by a trigger
(migration 004); every replica reads the recent changes each CHANGES_POLL_SECONDS and drops
what they name, so a removed membership, a downgraded role, a deleted organization or product,
a revoked OAuth grant or a user's revoked credentials (migration 006) stop working everywhere
within about a second. Entries are refreshed in the background before
they expire, the held row answering meanwhile. Malformed ids are answered as unknown without a query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import aiopg

from gateway import product_queries, queries
from gateway.cache import TtlCache
from libs.common.db import cursor
from libs.common.internal_token import Organization, Product
from libs.contract.validators import is_uuid

# Changes reach the caches through the poll; the time-to-live only bounds a missed one.
DIRECTORY_TTL_SECONDS = 60.0
REFRESH_AFTER_SECONDS = 45.0
# While the database cannot answer a refresh, the held row keeps answering this much longer.
MAX_STALE_SECONDS = 300.0
CHANGES_POLL_SECONDS = 1.0
# A change commits a moment after its timestamp is taken; re-reading a short overlap means a
# change committing during a poll, or a load racing one, is still seen by the next poll.
CHANGES_OVERLAP = timedelta(seconds=5)
PRUNE_EVERY_POLLS = 600
MAX_ENTRIES = 100_000


def _cache() -> TtlCache[Any]:
    return TtlCache(
        DIRECTORY_TTL_SECONDS, MAX_ENTRIES, refresh_after=REFRESH_AFTER_SECONDS, max_stale=MAX_STALE_SECONDS
    )


@dataclass(frozen=True)
class OwnedProduct:
    organization_id: str
    product: Product


class Directory:
    def __init__(self, pool: aiopg.Pool) -> None:
        self._pool = pool
        self._organizations: TtlCache[Organization | None] = _cache()
        self._products: TtlCache[OwnedProduct | None] = _cache()
        self._roles: TtlCache[str | None] = _cache()
        self._grants: TtlCache[bool] = _cache()
        self._revocations: TtlCache[float] = _cache()
        self._changed_since: datetime | None = None
        self._polls = 0

    async def drop_changed(self) -> None:
        """Forget the organizations, products and memberships changed since the last poll."""
        async with cursor(self._pool) as cur:
            changes, now = await queries.identity_changes_since(cur, self._changed_since)
            if self._polls % PRUNE_EVERY_POLLS == 0:
                await queries.prune_identity_changes(cur)
        self._polls += 1
        caches: dict[str, TtlCache[Any]] = {
            "organization": self._organizations,
            "product": self._products,
            "membership": self._roles,
            "grant": self._grants,
            "user": self._revocations,
        }
        for change in changes:
            caches[change["kind"]].discard(change["key"])
        self._changed_since = now - CHANGES_OVERLAP

    async def organization(self, organization_id: str) -> Organization | None:
        async def load() -> Organization | None:
            if not is_uuid(organization_id):
                return None
            async with cursor(self._pool) as cur:
                row = await queries.find_organization(cur, organization_id)
            return None if row is None else Organization(id=str(row["id"]), slug=row["slug"], name=row["name"])

        return await self._organizations.get_or_load(organization_id, load)

    async def product(self, product_id: str, *, fresh: bool = False) -> OwnedProduct | None:
        """A live product and its organization; None for an unknown or deleted id.

        `fresh` reads the database rather than the cache (and stores what it read): a product
        created or deleted by a call that has returned is then honoured at once, on every replica,
        where the cache learns of it within a poll.
        """

        async def load() -> OwnedProduct | None:
            if not is_uuid(product_id):
                return None
            async with cursor(self._pool) as cur:
                row = await product_queries.find_product(cur, product_id)
            if row is None:
                return None
            product = Product(id=str(row["id"]), name=row["name"], slug=row["slug"])
            return OwnedProduct(organization_id=str(row["organization_id"]), product=product)

        if fresh:
            owned = await load()
            self._products.set(product_id, owned)
            return owned
        return await self._products.get_or_load(product_id, load)

    async def role(self, user_id: str, organization_id: str) -> str | None:
        """The user's role in the organization, or None when not a member."""

        async def load() -> str | None:
            if not (is_uuid(user_id) and is_uuid(organization_id)):
                return None
            async with cursor(self._pool) as cur:
                return await queries.find_membership_role(cur, user_id, organization_id)

        return await self._roles.get_or_load(f"{user_id}:{organization_id}", load)

    async def grant_revoked(self, grant_id: str) -> bool:
        """Whether an OAuth grant (a refresh-token family) is revoked; an unknown one is."""

        async def load() -> bool:
            if not is_uuid(grant_id):
                return True
            async with cursor(self._pool) as cur:
                return await queries.is_grant_revoked(cur, grant_id)

        return await self._grants.get_or_load(grant_id, load)

    async def credentials_revoked_at(self, user_id: str) -> float:
        """When the user's sessions and access tokens were last revoked (a password change), as
        a Unix time; 0 when never. Credentials issued at or before it are refused."""

        async def load() -> float:
            if not is_uuid(user_id):
                return 0.0
            async with cursor(self._pool) as cur:
                revoked = await queries.find_credentials_revoked_at(cur, user_id)
            return 0.0 if revoked is None else revoked.timestamp()

        return await self._revocations.get_or_load(user_id, load)
