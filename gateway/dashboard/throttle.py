"""Failed sign-ins, limited per account from one address, per address, and per account.

Each attempt is reserved before the password is hashed (gateway/identity/auth/attempts.py), so a burst
of concurrent guesses gets no more through than a slow series would; a success gives its
reservation back and clears the account's count from that address. Shared by every replica.

No stranger can lock an account: the per-account ceiling, far above the per-(account, address)
limit, refuses only addresses that have already failed for that account in the window, so its
owner, from an address that never failed, still signs in with the right password.
"""

from __future__ import annotations

from gateway.identity.auth.attempts import Attempts, Limit, hashed


class SignInThrottle:
    def __init__(self, attempts: Attempts, per_account_and_address: int, per_address: int, per_account: int) -> None:
        self._attempts = attempts
        self._per_pair = per_account_and_address
        self._per_address = per_address
        self._per_account = per_account

    @staticmethod
    def _names(email: str, address: str) -> tuple[str, str, str]:
        pair = hashed(f"{email}\n{address}")
        return f"sign-in:pair:{pair}", f"sign-in:address:{hashed(address)}", f"sign-in:account:{hashed(email)}"

    async def reserve(self, email: str, address: str) -> int:
        """Count an attempt before it is checked; 0 when it may go on, else seconds to wait."""
        pair, place, account = self._names(email, address)
        return await self._attempts.reserve(
            Limit(pair, self._per_pair),
            Limit(place, self._per_address),
            Limit(account, self._per_account, only_after_first=True),
        )

    async def withdrawn(self, email: str, address: str) -> None:
        """The attempt was refused before it was checked: give its reservation back."""
        await self._attempts.release(*self._names(email, address))

    async def succeeded(self, email: str, address: str) -> None:
        """The attempt was right: it counts against nothing, and the account's failures from here are forgiven."""
        pair, place, account = self._names(email, address)
        await self._attempts.release(place, account)
        await self._attempts.clear(pair)
