"""API keys: how they are made, and how the gateway checks them without a round trip.

A key is `avk_<8 characters>_<43 characters>`: the first part is its readable prefix, the whole
carries 32 random bytes, and only its SHA-256 is stored. Checked keys are cached in memory; a
poller reads recent revocations every second, so a revoked key is refused by every replica
within about a second, and `last_used_at` is written in batches, off the request path. A
revocation scheduled for later (a rotation's grace period) is checked per request against the
cached end, and the poll whose window reaches that end drops the key from every cache.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import aiopg
from prometheus_client import Counter

from gateway.cache import TtlCache
from gateway.identity.auth import key_queries
from libs.common.db import conflict_on_unique, cursor
from libs.common.errors import Conflict, Unauthorized

KEY_MARK = "avk_"
PREFIX_CHARACTERS = string.ascii_letters + string.digits
PREFIX_LENGTH = 8
# What `generate_key` makes: the prefix, then 32 random bytes in URL-safe base64 (43 characters).
KEY_SHAPE = re.compile(rf"{KEY_MARK}[A-Za-z0-9]{{{PREFIX_LENGTH}}}_[A-Za-z0-9_-]{{43}}")

REVOCATION_POLL_SECONDS = 1.0
LAST_USED_FLUSH_SECONDS = 5.0
# A revocation commits a moment after its timestamp is taken; re-reading a short overlap
# means a revocation that commits during a poll is still seen by the next one.
REVOCATION_OVERLAP = timedelta(seconds=5)
VALID_KEY_TTL_SECONDS = 300.0
UNKNOWN_KEY_TTL_SECONDS = 30.0
MAX_CACHED_KEYS = 100_000

KEY_CACHE_LOOKUPS = Counter(
    "gateway_key_cache_lookups_total",
    "API keys looked up: hit (a valid key in memory), negative_hit (a key known to be unknown), "
    "miss (a database lookup).",
    ["result"],
)


def invalid_key() -> Unauthorized:
    return Unauthorized("invalid api key")


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def key_prefix(key: str) -> str:
    """The public, displayed part of a well-formed key (what `generate_key` returns beside it)."""
    return key[: len(KEY_MARK) + PREFIX_LENGTH]


def generate_key() -> tuple[str, str]:
    """A new key and its readable prefix."""
    prefix = KEY_MARK + "".join(secrets.choice(PREFIX_CHARACTERS) for _ in range(PREFIX_LENGTH))
    return f"{prefix}_{secrets.token_urlsafe(32)}", prefix


async def create_api_key(
    cur: Any, organization_id: str, name: str, scopes: frozenset[str], expires_at: datetime | None = None
) -> tuple[str, dict[str, Any]]:
    """Store a new key; returns the key (shown once) and its stored row."""
    for _ in range(3):
        key, prefix = generate_key()
        try:
            with conflict_on_unique("prefix taken"):
                row = await key_queries.insert_api_key(
                    cur, organization_id, name, prefix, hash_key(key), sorted(scopes), expires_at
                )
            return key, row
        except Conflict:
            continue  # a prefix collision (1 in 10^14); draw again
    raise RuntimeError("could not draw an unused key prefix")


@dataclass(frozen=True)
class KeyRecord:
    id: str
    organization_id: str
    scopes: frozenset[str]
    expires_at: datetime | None
    # Set when a revocation is scheduled for later (the old key of a rotation, during its grace period).
    revoked_at: datetime | None

    def refused_at(self, now: datetime) -> bool:
        return any(end is not None and end <= now for end in (self.expires_at, self.revoked_at))


class ApiKeyStore:
    """Resolves keys from memory after the first sight of each; refuses revoked and expired keys."""

    def __init__(self, pool: aiopg.Pool, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._pool = pool
        self._clock = clock
        self._valid: TtlCache[KeyRecord] = TtlCache(VALID_KEY_TTL_SECONDS, MAX_CACHED_KEYS)
        self._unknown: TtlCache[bool] = TtlCache(UNKNOWN_KEY_TTL_SECONDS, MAX_CACHED_KEYS)
        self._used: set[str] = set()
        self._revoked_since: datetime | None = None

    async def authenticate(self, key: str) -> KeyRecord:
        if not KEY_SHAPE.fullmatch(key):  # not one we could have issued: no lookup
            raise invalid_key()
        digest = hash_key(key)
        record = self._valid.get(digest)
        if record is None:
            record = await self._load(digest)
        else:
            KEY_CACHE_LOOKUPS.labels("hit").inc()
        if record.refused_at(self._clock()):
            raise invalid_key()
        self._used.add(record.id)
        return record

    async def _load(self, digest: str) -> KeyRecord:
        if digest in self._unknown:
            KEY_CACHE_LOOKUPS.labels("negative_hit").inc()
            raise invalid_key()
        KEY_CACHE_LOOKUPS.labels("miss").inc()
        async with cursor(self._pool) as cur:
            row = await key_queries.find_active_key_by_hash(cur, digest)
        if row is None:
            self._unknown.set(digest, True)
            raise invalid_key()
        record = KeyRecord(
            id=str(row["id"]),
            organization_id=str(row["organization_id"]),
            scopes=frozenset(row["scopes"]),
            expires_at=row["expires_at"],
            revoked_at=row["revoked_at"],
        )
        self._valid.set(digest, record)
        return record

    async def drop_revoked(self) -> None:
        """Forget keys revoked since the last poll (run every second)."""
        async with cursor(self._pool) as cur:
            hashes, now = await key_queries.revoked_key_hashes_since(cur, self._revoked_since)
        for digest in hashes:
            self._valid.discard(digest)
            self._unknown.set(digest, True)
        self._revoked_since = now - REVOCATION_OVERLAP

    async def flush_last_used(self) -> None:
        """Write `last_used_at` for the keys used since the last flush, in one statement."""
        if not self._used:
            return
        used, self._used = sorted(self._used), set()
        async with cursor(self._pool) as cur:
            await key_queries.touch_api_keys(cur, used)
