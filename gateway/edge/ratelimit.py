"""Rate limits per credential: a token bucket decided in memory, reconciled with Redis.

Waiting on Redis for every request would cost a third of the gateway's throughput (design
brief), so each replica decides locally and, every SYNC_INTERVAL_SECONDS, sends Redis what it
consumed per credential; a Lua script applies that to the shared bucket and answers the shared
level, which becomes the local level. Replicas therefore agree within one sync interval: the
global limit is approximate by at most what the other replicas admit in that interval, the
trade Kong's and Envoy's local limiters make too. When Redis is down, every replica keeps
enforcing the limit on its own, and a metric counts the requests decided that way.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from prometheus_client import Counter
from redis.exceptions import RedisError

from libs.common.metrics import REDIS_ERRORS
from libs.common.tasks import backoff_seconds

log = logging.getLogger(__name__)

SYNC_INTERVAL_SECONDS = 0.25

LOCAL_ONLY = Counter(
    "gateway_ratelimit_local_only_requests_total",
    "Requests whose rate-limit decision could not be reconciled with Redis (Redis unreachable).",
)
REJECTED = Counter("gateway_ratelimit_rejected_total", "Requests refused with 429.")

# KEYS[1]: the bucket; ARGV: rate per second, burst, tokens consumed locally since the last sync.
# Answers the bucket's level after refilling and consuming, as a string (Lua numbers would be
# truncated to integers on the way out). The level may go below zero, down to -burst, so a
# credential that overshot across replicas pays it back.
SYNC_SCRIPT = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local used = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or burst
local ts = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate) - used
if tokens < -burst then tokens = -burst end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 60)
return tostring(tokens)
"""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int
    retry_after_seconds: int

    def headers(self) -> dict[str, str]:
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after_seconds)
        return headers


@dataclass
class _Bucket:
    tokens: float
    updated: float
    unsynced: int = 0


class RateLimiter:
    def __init__(
        self,
        per_minute: int,
        burst: int,
        redis: aioredis.Redis | None = None,
        prefix: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self._redis = redis
        self._prefix = prefix
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._script = redis.register_script(SYNC_SCRIPT) if redis is not None else None
        self._redis_down = False
        # While Redis is away, syncs are tried less and less often (libs.common.tasks.backoff_seconds).
        self._failed_syncs = 0
        self._next_sync_at = 0.0

    def _refilled(self, key: str) -> _Bucket:
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(tokens=float(self.burst), updated=now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
        return bucket

    def take(self, key: str) -> Decision:
        """Spend one token of `key`'s bucket if it has one. No I/O."""
        bucket = self._refilled(key)
        allowed = bucket.tokens >= 1
        if allowed:
            bucket.tokens -= 1
            bucket.unsynced += 1
        else:
            REJECTED.inc()
        return self._decision(bucket, allowed)

    async def take_shared(self, key: str) -> Decision:
        """Spend one token of `key`'s bucket in Redis itself, exact across replicas: for rare
        events (refused credentials), where a round trip costs nothing that matters. Without
        Redis, the local bucket decides."""
        if self._redis is None or self._script is None:
            return self.take(key)
        try:
            level = float(await self._script(keys=[f"{self._prefix}ratelimit:{key}"], args=[self.rate, self.burst, 1]))
        except (RedisError, OSError):
            REDIS_ERRORS.labels("ratelimit_shared").inc()
            LOCAL_ONLY.inc()
            return self.take(key)
        # The level is after this event: from `burst` down, the event that takes it below zero is refused.
        allowed = level >= 0
        if not allowed:
            REJECTED.inc()
        return self._decision(_Bucket(tokens=level + (1 if allowed else 0), updated=self._clock()), allowed)

    def _decision(self, bucket: _Bucket, allowed: bool) -> Decision:
        return Decision(
            allowed=allowed,
            limit=self.burst,
            remaining=max(0, math.floor(bucket.tokens)),
            reset_seconds=math.ceil(max(0.0, self.burst - bucket.tokens) / self.rate),
            retry_after_seconds=max(1, math.ceil((1 - bucket.tokens) / self.rate)),
        )

    async def sync(self) -> None:
        """Reconcile every bucket used since the last sync with its shared level in Redis."""
        pending = {key: bucket.unsynced for key, bucket in self._buckets.items() if bucket.unsynced}
        for key in pending:
            self._buckets[key].unsynced = 0
        self._forget_idle(pending)
        if not pending or self._redis is None or self._script is None:
            return
        if time.monotonic() < self._next_sync_at:  # Redis was away at the last try: counted alone meanwhile
            LOCAL_ONLY.inc(sum(pending.values()))
            return
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for key, used in pending.items():
                    await self._script(
                        keys=[f"{self._prefix}ratelimit:{key}"], args=[self.rate, self.burst, used], client=pipe
                    )
                levels = await pipe.execute()
        except (RedisError, OSError) as exc:
            REDIS_ERRORS.labels("ratelimit_sync").inc()
            LOCAL_ONLY.inc(sum(pending.values()))
            if not self._redis_down:
                log.warning("rate limits fall back to per-replica counting: Redis unreachable (%r)", exc)
            self._redis_down = True
            self._failed_syncs += 1
            self._next_sync_at = time.monotonic() + backoff_seconds(self._failed_syncs)
            return
        for key, level in zip(pending, levels, strict=True):
            bucket = self._refilled(key)
            # Requests admitted while the sync was in flight are not in `level` yet: keep them spent.
            bucket.tokens = float(level) - bucket.unsynced
        if self._redis_down:
            log.info("rate limits reconciled with Redis again")
        self._redis_down = False
        self._failed_syncs = 0

    def _forget_idle(self, pending: dict[str, int]) -> None:
        """Drop buckets that are full again and unused, so memory follows the active credentials."""
        for key in [key for key in self._buckets if key not in pending]:
            if self._refilled(key).tokens >= self.burst:
                del self._buckets[key]
