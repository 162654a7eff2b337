"""Limits of the device flow, per address and per dashboard session, counted in Redis.

Device codes issued per client address (each is a database row a client could otherwise make
by the thousand), and user codes entered on `/device` that match no pending authorization, per
account and per address: a code is eight of twenty letters, so guessing needs millions of tries,
and this keeps anyone to a few dozen per window. Entries are reserved before the lookup and a
match gives its reservation back (gateway/identity/auth/attempts.py), so a burst cannot overshoot.

The address's ceiling refuses only accounts that have themselves missed in the window: a member
of a shared office who types the right code is never blocked by a neighbour's guesses (an
attacker's accounts each get one miss past the ceiling, then their own limit and the address's).
"""

from __future__ import annotations

from aiohttp import ChainMapProxy

from gateway.identity.auth.attempts import Attempts, Limit, hashed
from gateway.settings import GatewaySettings
from libs.common.state import REDIS, SETTINGS


class DeviceFlowLimits:
    def __init__(self, state: ChainMapProxy) -> None:
        settings: GatewaySettings = state[SETTINGS]
        self._settings = settings
        self._attempts = Attempts(state[REDIS], settings.redis_prefix, settings.device_flow_window)

    async def reserve_code(self, address: str) -> int:
        """Count a device code issued to `address`; 0 when allowed, else seconds to wait."""
        return await self._attempts.reserve(
            Limit(f"device-codes:{hashed(address)}", self._settings.device_codes_per_address)
        )

    @staticmethod
    def _entry_names(user_id: str, address: str) -> tuple[str, str]:
        return f"user-codes:account:{hashed(user_id)}", f"user-codes:address:{hashed(address)}"

    async def reserve_entry(self, user_id: str, address: str) -> int:
        """Count a user code entered; 0 when it may be looked up, else seconds to wait."""
        account, place = self._entry_names(user_id, address)
        return await self._attempts.reserve(
            Limit(account, self._settings.user_code_misses_per_account),
            Limit(place, self._settings.user_code_misses_per_address, only_after_first=True),
        )

    async def matched(self, user_id: str, address: str) -> None:
        """The code entered was a pending one: it counts against nothing."""
        await self._attempts.release(*self._entry_names(user_id, address))
