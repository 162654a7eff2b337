"""Failed sign-ins, counted in Redis per account and per address over a fixed window.

Shared by every gateway replica and worker. Once either count reaches its limit, sign-in is
refused (even with the right password) until the window ends. A success clears the account's
count, not the address's, so one valid account does not reopen an address guessing others.
"""

from __future__ import annotations

import hashlib

import redis.asyncio as aioredis


class SignInThrottle:
    def __init__(
        self, redis: aioredis.Redis, prefix: str, per_account: int, per_address: int, window_seconds: int
    ) -> None:
        self._redis = redis
        self._prefix = prefix
        self._per_account = per_account
        self._per_address = per_address
        self._window = window_seconds

    def _keys(self, email: str, address: str) -> tuple[str, str]:
        # Hashed: Redis needs no copy of who tried to sign in from where.
        account = hashlib.sha256(email.encode()).hexdigest()[:32]
        place = hashlib.sha256(address.encode()).hexdigest()[:32]
        return f"{self._prefix}sign-in-failures:account:{account}", f"{self._prefix}sign-in-failures:address:{place}"

    async def retry_after(self, email: str, address: str) -> int:
        """Seconds until a sign-in may be tried again; 0 when it may be tried now."""
        account_key, address_key = self._keys(email, address)
        account, address_count = await self._redis.mget(account_key, address_key)
        waits = [0]
        if account is not None and int(account) >= self._per_account:
            waits.append(await self._redis.ttl(account_key))
        if address_count is not None and int(address_count) >= self._per_address:
            waits.append(await self._redis.ttl(address_key))
        return max(waits)

    async def failed(self, email: str, address: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            for key in self._keys(email, address):
                pipe.incr(key)
                pipe.expire(key, self._window, nx=True)
            await pipe.execute()

    async def succeeded(self, email: str, address: str) -> None:
        await self._redis.delete(self._keys(email, address)[0])
