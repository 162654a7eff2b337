"""Whether a request that claims an agent is that agent: by its Web Bot Auth signature, the
operator's published addresses, or forward-confirmed reverse DNS, in that order; otherwise only
its user agent says so (`ua`, not verified). A claim from an address outside an operator's
complete published list, not proven otherwise, is spoofed.

Reverse DNS: the address's PTR names that end in one of the operator's documented suffixes, whose
A or AAAA records lead back to the address. Answers are cached per address for an hour; which DNS
servers are asked is a setting (DNS_NAMESERVERS, DNS_PORT), as for domain proofs.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import dns.asyncresolver
import dns.exception
import dns.resolver
import dns.reversename

from services.traffic.catalog import Agent
from services.traffic.signatures import SignatureChecker, signature_agent_origin
from services.traffic.ttl_cache import MISSING, TtlCache

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
RDNS_TTL_SECONDS = 3600.0


@dataclass(frozen=True)
class Verdict:
    verified: bool
    matched_by: str  # ua, ip, rdns, signature
    spoofed: bool = False


@dataclass(frozen=True)
class Claim:
    """What a request offers as proof: its address, and its signature headers if any."""

    address: Address
    method: str
    url: str
    at: datetime
    signature: str | None = None
    signature_input: str | None = None
    signature_agent: str | None = None


@dataclass
class ReverseDns:
    nameservers: tuple[str, ...]
    port: int
    timeout_seconds: float
    _names: TtlCache[Address, tuple[str, ...]] = field(default_factory=lambda: TtlCache(RDNS_TTL_SECONDS))

    def _resolver(self) -> dns.asyncresolver.Resolver:
        resolver = dns.asyncresolver.Resolver(configure=not self.nameservers)
        if self.nameservers:
            resolver.nameservers = list(self.nameservers)
        resolver.port = self.port
        resolver.lifetime = self.timeout_seconds
        return resolver

    def cached(self, address: Address) -> tuple[str, ...] | None:
        """The confirmed names of an address looked up within the hour; None when not."""
        found = self._names.get(address)
        return None if found is MISSING else found  # type: ignore[return-value]

    async def confirmed_names(self, address: Address) -> tuple[str, ...]:
        """The address's PTR names whose forward records include the address (cached)."""
        found = self._names.get(address)
        if found is not MISSING:
            return found  # type: ignore[return-value]
        names = await self._confirm(address)
        self._names.put(address, names)
        return names

    async def _confirm(self, address: Address) -> tuple[str, ...]:
        resolver = self._resolver()
        try:
            answer: Any = await resolver.resolve(dns.reversename.from_address(str(address)), "PTR")
        except dns.exception.DNSException:
            return ()
        confirmed = []
        record_type = "A" if address.version == 4 else "AAAA"
        for record in answer:
            name = record.target.to_text(omit_final_dot=True).lower()
            try:
                forward: Any = await resolver.resolve(name, record_type)
            except dns.exception.DNSException:
                continue
            if any(ipaddress.ip_address(item.address) == address for item in forward):
                confirmed.append(name)
        return tuple(confirmed)


@dataclass
class Verifier:
    rdns: ReverseDns
    signatures: SignatureChecker

    async def verify(self, agent: Agent, claim: Claim) -> Verdict:
        if self._signing_origin(agent, claim) and await self._signed(agent, claim):
            return Verdict(True, "signature")
        if agent.from_published_range(claim.address):
            return Verdict(True, "ip")
        names = await self.rdns.confirmed_names(claim.address) if agent.rdns_suffixes else ()
        return self._judged(agent, names)

    def settled(self, agent: Agent, claim: Claim) -> Verdict | None:
        """The verdict when it needs no lookup (no signature to check, no reverse DNS to ask, or
        its answer cached), as `verify` would give it; None when it does. Most requests of a batch
        are settled here, without a coroutine each."""
        if self._signing_origin(agent, claim):
            return None
        if agent.from_published_range(claim.address):
            return Verdict(True, "ip")
        if not agent.rdns_suffixes:
            return self._judged(agent, ())
        names = self.rdns.cached(claim.address)
        return None if names is None else self._judged(agent, names)

    @staticmethod
    def _judged(agent: Agent, confirmed_names: tuple[str, ...]) -> Verdict:
        if any(name.endswith(agent.rdns_suffixes) for name in confirmed_names):
            return Verdict(True, "rdns")
        return Verdict(False, "ua", spoofed=agent.ip_ranges_complete)

    @staticmethod
    def _signing_origin(agent: Agent, claim: Claim) -> str | None:
        """The Signature-Agent origin to check, when the request is signed by one the catalog lists."""
        if not (claim.signature and claim.signature_input and claim.signature_agent):
            return None
        origin = signature_agent_origin(claim.signature_agent)
        return origin if origin in agent.signature_agents else None

    async def _signed(self, agent: Agent, claim: Claim) -> bool:
        origin = self._signing_origin(agent, claim)
        assert origin is not None and claim.signature and claim.signature_input and claim.signature_agent
        return await self.signatures.verify(
            origin,
            method=claim.method,
            url=claim.url,
            signature=claim.signature,
            signature_input=claim.signature_input,
            signature_agent=claim.signature_agent,
            at=claim.at,
        )
