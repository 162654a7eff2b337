"""Proving a hostname: the TXT record a domain's challenge asks for, looked up in DNS with dnspython.

A check answers None when a TXT record at `_aivis-challenge.<hostname>` carries the token, or why
not: `NO_RECORD`, `WRONG_VALUE`, `DNS_TIMEOUT` or `DNS_ERROR`, each with a message for a person.
Which servers are asked is a setting (DNS_NAMESERVERS, DNS_PORT; none named: the system's
resolv.conf); nothing is cached, so a record just published is seen by the next check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dns.asyncresolver
import dns.exception
import dns.resolver

CHALLENGE_PREFIX = "_aivis-challenge."


def challenge(hostname: str, token: str) -> dict[str, str]:
    """The DNS record that proves `hostname`, as the API shows it."""
    return {"type": "TXT", "name": f"{CHALLENGE_PREFIX}{hostname}", "value": token}


def failure(code: str, message: str) -> dict[str, str]:
    return {"code": code, "message": message}


@dataclass(frozen=True)
class TxtChecker:
    nameservers: tuple[str, ...]
    port: int
    timeout_seconds: float

    def _resolver(self) -> dns.asyncresolver.Resolver:
        resolver = dns.asyncresolver.Resolver(configure=not self.nameservers)
        if self.nameservers:
            resolver.nameservers = list(self.nameservers)
        resolver.port = self.port
        resolver.lifetime = self.timeout_seconds
        return resolver

    async def lookup(self, hostname: str) -> Lookup:
        """The values of the challenge record of `hostname`, or why none could be read."""
        name = f"{CHALLENGE_PREFIX}{hostname}"
        try:
            answer: Any = await self._resolver().resolve(name, "TXT")
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return Lookup(name, frozenset(), None)
        except dns.exception.Timeout:
            waited = f"{self.timeout_seconds:g} s"
            return Lookup(
                name, frozenset(), failure("DNS_TIMEOUT", f"DNS did not answer for {name} within {waited}; try again.")
            )
        except dns.exception.DNSException as exc:
            return Lookup(
                name, frozenset(), failure("DNS_ERROR", f"DNS could not be asked for {name}: {exc}; try again.")
            )
        # A TXT record's value may be split into strings of up to 255 bytes: they are one value.
        return Lookup(name, frozenset(b"".join(record.strings).decode("utf-8", "replace") for record in answer), None)

    async def check(self, hostname: str, token: str) -> dict[str, str] | None:
        """None when the challenge record of `hostname` carries `token`; otherwise why it does not."""
        return (await self.lookup(hostname)).proves(token)


@dataclass(frozen=True)
class Lookup:
    """What one lookup of a challenge record found: its values, or the error that left them unknown."""

    name: str
    values: frozenset[str]
    error: dict[str, str] | None

    def proves(self, token: str) -> dict[str, str] | None:
        """None when the record carries `token`; otherwise why it does not."""
        if self.error is not None:
            return self.error
        if token in self.values:
            return None
        if not self.values:
            return failure(
                "NO_RECORD", f"No TXT record at {self.name}: add one with the value shown in `verification`."
            )
        return failure(
            "WRONG_VALUE",
            f"The TXT record at {self.name} does not carry this domain's token"
            f" (found {len(self.values)} other value(s)).",
        )

    def absent(self, token: str) -> bool:
        """Whether the record was read and does not carry `token` (an unanswered lookup says nothing)."""
        return self.error is None and token not in self.values
