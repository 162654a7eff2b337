"""The client's address, for every per-address limit and record: one function, one rule.

The client is the TCP peer, unless the peer is one of the configured trusted proxies
(TRUSTED_PROXIES); then it is the right-most address of `X-Forwarded-For` that is not a trusted
proxy. Each proxy appends the address it saw, so everything left of the first untrusted hop was
written by the client and proves nothing. Nothing else (`Forwarded`, `X-Real-IP`) is read.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from aiohttp import web

from libs.common.settings import SettingsError
from libs.common.state import SETTINGS

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
UNKNOWN = "unknown"


def parse_trusted_proxies(text: str) -> tuple[Network, ...]:
    """TRUSTED_PROXIES: comma-separated addresses or CIDR blocks; empty trusts no proxy."""
    networks = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise SettingsError(f"TRUSTED_PROXIES: {item!r} is not an address or CIDR block") from None
    return tuple(networks)


def _trusted(address: str, proxies: Iterable[Network]) -> bool:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in proxies)


def resolve_client_address(peer: str | None, forwarded_for: Iterable[str], proxies: tuple[Network, ...]) -> str:
    """The client's address from the peer and the `X-Forwarded-For` headers (pure, for tests)."""
    if peer is None:
        return UNKNOWN
    if not proxies or not _trusted(peer, proxies):
        return peer
    hops = [hop.strip() for header in forwarded_for for hop in header.split(",")]
    client = peer
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return client  # garbage where an address should be: the last proxy that spoke is the client
        client = hop
        if not _trusted(hop, proxies):
            return hop
    return client


def client_address(request: web.Request) -> str:
    """The address of the client that sent `request` (see the module's rule)."""
    proxies: tuple[Network, ...] = request.config_dict[SETTINGS].trusted_proxies
    return resolve_client_address(request.remote, request.headers.getall("X-Forwarded-For", ()), proxies)
