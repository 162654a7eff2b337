"""A growing slow-down of sign-ins to an account under attack, and the notice its owner gets.

The per-account ceiling (gateway/dashboard/throttle.py) refuses only addresses that have failed,
so an attacker with many addresses gets one guess from each. Past SIGN_IN_SLOW_DOWN_AFTER (10)
failures in the window, attempts at the account from an address it has never signed in from pass
a gate one at a time, each pushing the next SIGN_IN_SLOW_DOWN_MILLISECONDS (1000) further, the
step doubling every SLOW_DOWN_STEP failures up to DELAY_CAP_SECONDS: whatever the number of addresses, the account
sees at most one such attempt per step. An attempt whose turn is more than MAX_WAIT_SECONDS away
is a 429 with `Retry-After`. Addresses the account signed in from before (kept FAMILIAR_DAYS) are
never gated, so its owner is not locked out by the attack, the rule trusted systems call
"familiar locations".

After NOTICE_AFTER failures in a window, the owner is told: one `account.sign_in_failures`
record in the audit trail (of the organization a sign-in opens), and a notice on their Security
page (how many failures, first and last) until they dismiss it.
"""

from __future__ import annotations

import time

import redis.asyncio as aioredis
from aiohttp import ChainMapProxy

from gateway.identity.auth.attempts import hashed
from gateway.settings import GatewaySettings
from libs.common.state import REDIS, SETTINGS

SLOW_DOWN_STEP = 10
DELAY_CAP_SECONDS = 30.0
MAX_WAIT_SECONDS = 10.0
FAMILIAR_DAYS = 90
NOTICE_AFTER = 10
NOTICE_DAYS = 30

# KEYS: the account's failure counter, its gate. ARGV: after, step, base, cap, max wait, window.
# Answers the seconds to wait for this attempt's turn (taking it), or, when that is more than the
# max wait, minus the seconds until a turn would come (taking nothing). An account stays slowed
# while its gate is ahead, though the attempts it refused are not counted as failures.
GATE_SCRIPT = """
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
local after, step = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local ahead = tonumber(redis.call('GET', KEYS[2]) or '0')
if failures < after and ahead <= now then return '0' end
local base, cap, max_wait, window = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local delay = math.min(cap, base * 2 ^ math.floor(math.max(0, failures - after) / step))
local gate = math.max(now, ahead)
local wait = gate - now
if wait > max_wait then return tostring(-wait) end
redis.call('SET', KEYS[2], tostring(gate + delay), 'EX', window)
return tostring(wait)
"""


class SlowDown:
    def __init__(self, redis: aioredis.Redis, prefix: str, window_seconds: int, after: int, delay: float) -> None:
        self._redis = redis
        self._prefix = prefix
        self._window = window_seconds
        self._after = after
        self._delay = delay
        self._gate = redis.register_script(GATE_SCRIPT)

    @classmethod
    def of(cls, state: ChainMapProxy) -> SlowDown:
        settings: GatewaySettings = state[SETTINGS]
        return cls(
            state[REDIS],
            settings.redis_prefix,
            settings.sign_in_failure_window,
            settings.sign_in_slow_down_after,
            settings.sign_in_slow_down_seconds,
        )

    def _key(self, kind: str, email: str) -> str:
        return f"{self._prefix}attempts:sign-in:{kind}:{hashed(email)}"

    async def turn(self, email: str, address: str) -> float:
        """Seconds this attempt waits for its turn (0: none); negative: refused, a turn being
        that far away. Familiar addresses are never gated."""
        if await self._redis.sismember(self._key("familiar", email), hashed(address)):
            return 0.0
        answer = await self._gate(
            keys=[self._key("account", email), self._key("gate", email)],
            args=[self._after, SLOW_DOWN_STEP, self._delay, DELAY_CAP_SECONDS, MAX_WAIT_SECONDS, self._window],
        )
        return float(answer)

    async def signed_in(self, email: str, address: str) -> None:
        """The account signed in from `address`: a familiar one from now on."""
        key = self._key("familiar", email)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.sadd(key, hashed(address))
            pipe.expire(key, FAMILIAR_DAYS * 86400)
            await pipe.execute()

    async def failed(self, email: str) -> bool:
        """Count a failure (a wrong password, or an attempt the gate refused) towards the owner's
        notice; True once per window, when the failures not yet dismissed make a burst."""
        notice, now = self._key("notice", email), str(time.time())
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hsetnx(notice, "first", now)
            pipe.hset(notice, "last", now)
            pipe.hincrby(notice, "count", 1)
            pipe.expire(notice, NOTICE_DAYS * 86400)
            *_, count, _ = await pipe.execute()
        if int(count) < NOTICE_AFTER:
            return False
        return bool(await self._redis.set(self._key("notice-sent", email), "1", nx=True, ex=self._window))

    async def notice(self, email: str) -> dict[str, float] | None:
        """The failures since the owner last dismissed the notice (count, first and last, Unix
        times), once they make a burst; None before."""
        found = await self._redis.hgetall(self._key("notice", email))
        values = {(name.decode() if isinstance(name, bytes) else name): float(value) for name, value in found.items()}
        return values if values.get("count", 0) >= NOTICE_AFTER else None

    async def dismiss(self, email: str) -> None:
        await self._redis.delete(self._key("notice", email))
