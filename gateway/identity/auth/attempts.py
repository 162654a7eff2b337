"""Attempts counted in Redis over a fixed window, reserved atomically before the work they guard.

A check before slow work and a count after it let a burst through: every request of the burst
is checked before any is counted. Here one Lua script checks every limit and counts the attempt
in the same step, so N concurrent attempts against a limit of L get at most L through, on any
number of replicas. An attempt that turns out good gives its reservation back (`release`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import redis.asyncio as aioredis

# KEYS: the counters. ARGV[1]: the window in seconds; ARGV[1 + i]: KEYS[i]'s limit, where a limit
# written "~N" applies only while KEYS[1] counts something. Answers 0 when the attempt is counted,
# else the seconds until the fullest counter that refused it expires.
RESERVE_SCRIPT = """
local window = tonumber(ARGV[1])
local first = tonumber(redis.call('GET', KEYS[1]) or '0')
local wait = 0
for i, key in ipairs(KEYS) do
  local spec = ARGV[i + 1]
  local conditional = string.sub(spec, 1, 1) == '~'
  local limit = tonumber(conditional and string.sub(spec, 2) or spec)
  if (not conditional or first > 0) and tonumber(redis.call('GET', key) or '0') >= limit then
    wait = math.max(wait, redis.call('TTL', key), 1)
  end
end
if wait > 0 then return wait end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('EXPIRE', key, window, 'NX')
end
return 0
"""


@dataclass(frozen=True)
class Limit:
    key: str
    limit: int
    # Counts only while the first counter of the reservation does (see RESERVE_SCRIPT).
    only_after_first: bool = False


def hashed(value: str) -> str:
    """A counter's name for a person or address: Redis needs no copy of who tried what from where."""
    return hashlib.sha256(value.encode()).hexdigest()[:32]


class Attempts:
    def __init__(self, redis: aioredis.Redis, prefix: str, window_seconds: int) -> None:
        self._redis = redis
        self._prefix = prefix
        self._window = window_seconds
        self._script = redis.register_script(RESERVE_SCRIPT)

    def _key(self, name: str) -> str:
        return f"{self._prefix}attempts:{name}"

    async def reserve(self, *limits: Limit) -> int:
        """Count one attempt against every limit; 0 when counted, else the seconds to wait (nothing counted)."""
        keys = [self._key(limit.key) for limit in limits]
        specs = [f"~{limit.limit}" if limit.only_after_first else str(limit.limit) for limit in limits]
        wait: int = await self._script(keys=keys, args=[self._window, *specs])
        return int(wait)

    async def release(self, *names: str) -> None:
        """Give back a reservation of the counters `names` (the attempt was good)."""
        async with self._redis.pipeline(transaction=True) as pipe:
            for name in names:
                pipe.decr(self._key(name))
            await pipe.execute()

    async def clear(self, name: str) -> None:
        await self._redis.delete(self._key(name))
