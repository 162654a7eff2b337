"""The catalog of AI agents and answer engines: the committed snapshot (data/agents.json, built by
`python -m services.traffic.refresh`), and how a request is told to be one of them.

An agent is recognised by its user agent (the first of the catalog's patterns found in it); a
human request by its referrer, when that is an answer engine's host (a referral).
"""

from __future__ import annotations

import bisect
import ipaddress
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from libs.common.encoding import loads

SNAPSHOT = Path(__file__).parent / "data" / "agents.json"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class AddressRanges:
    """Networks as disjoint, sorted intervals of integers per IP version: whether an address is in
    one of them is a bisection, not a test of each network (Googlebot's list has over 300)."""

    def __init__(self, networks: tuple[Network, ...]) -> None:
        self._intervals: dict[int, tuple[list[int], list[int]]] = {}
        for version in (4, 6):
            merged: list[list[int]] = []
            for first, last in sorted(
                (int(n.network_address), int(n.broadcast_address)) for n in networks if n.version == version
            ):
                if merged and first <= merged[-1][1] + 1:
                    merged[-1][1] = max(merged[-1][1], last)
                else:
                    merged.append([first, last])
            self._intervals[version] = ([first for first, _ in merged], [last for _, last in merged])

    def __contains__(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        firsts, lasts = self._intervals[address.version]
        index = bisect.bisect_right(firsts, int(address)) - 1
        return index >= 0 and int(address) <= lasts[index]


@dataclass(frozen=True)
class Agent:
    id: str
    name: str
    operator: str
    category: str
    robots_token: str | None
    patterns: tuple[str, ...]
    docs: str | None
    ip_ranges: tuple[Network, ...]
    # Whether `ip_ranges` is the operator's complete published list: a claim from elsewhere is spoofed.
    ip_ranges_complete: bool
    rdns_suffixes: tuple[str, ...]
    signature_agents: tuple[str, ...]
    document: dict[str, Any]
    _ranges: AddressRanges = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_ranges", AddressRanges(self.ip_ranges))

    def from_published_range(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return address in self._ranges


@dataclass(frozen=True)
class Referrer:
    platform: str
    name: str
    operator: str
    hosts: tuple[str, ...]


class Catalog:
    """The agents and referrers of a snapshot, with one compiled expression to recognise them."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.source: dict[str, Any] = snapshot["source"]
        self.agents = tuple(_agent(entry) for entry in snapshot["agents"])
        self.referrers = tuple(
            Referrer(r["platform"], r["name"], r["operator"], tuple(r["hosts"])) for r in snapshot["referrers"]
        )
        self.by_id = {agent.id: agent for agent in self.agents}
        # One expression a pattern, tried in order: most are literals, which `re` finds by a fast
        # substring search (microseconds for every pattern), where one alternation of them all
        # is tried position by position (over a millisecond a user agent).
        self._patterns = [(re.compile(pattern), agent) for agent in self.agents for pattern in agent.patterns]
        self._referrer_hosts = {host: referrer for referrer in self.referrers for host in referrer.hosts}
        self.operators = {agent.operator for agent in self.agents}

    @classmethod
    def load(cls, path: Path = SNAPSHOT) -> Catalog:
        return cls(loads(path.read_bytes()))

    def agent_of(self, user_agent: str) -> Agent | None:
        """The agent of the first pattern found in `user_agent`, or None."""
        return next((agent for pattern, agent in self._patterns if pattern.search(user_agent)), None)

    def referrer_of(self, referer: str | None) -> Referrer | None:
        """The answer engine a `Referer` names (its host, or a subdomain of it), or None."""
        if not referer:
            return None
        try:
            host = (urlsplit(referer).hostname or "").rstrip(".")
        except ValueError:
            return None
        while host:
            if host in self._referrer_hosts:
                return self._referrer_hosts[host]
            host = host.partition(".")[2]
        return None

    def referrer(self, platform: str) -> Referrer | None:
        return next((referrer for referrer in self.referrers if referrer.platform == platform), None)


def _agent(entry: dict[str, Any]) -> Agent:
    verification = entry["verification"]
    ranges = verification["ipRanges"]
    return Agent(
        id=entry["id"],
        name=entry["name"],
        operator=entry["operator"],
        category=entry["category"],
        robots_token=entry["robotsToken"],
        patterns=tuple(entry["patterns"]),
        docs=entry["docs"],
        ip_ranges=tuple(ipaddress.ip_network(prefix) for prefix in ranges["prefixes"]),
        ip_ranges_complete=bool(ranges["prefixes"]) and ranges["complete"],
        rdns_suffixes=tuple(verification["rdnsSuffixes"]),
        signature_agents=tuple(verification["signatureAgents"]),
        document=entry,
    )
