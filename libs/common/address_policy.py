"""Where the product may connect on a customer's behalf (webhook URLs, App origins): never to an
internal address (loopback, private, link-local, ...), whatever its encoding, unless a setting
allows its network.

IPv6 can carry an IPv4 address inside it, and a connection to such an address may end at that
IPv4 host (a NAT64 gateway, a 6to4 relay, a dual-stack socket): `2002:7f00:1::` is 127.0.0.1 by
6to4. So an address of a translating prefix is judged by the IPv4 address it carries, and the
prefixes that only tunnels or deprecated forms use are refused outright. A literal IPv4 address
is read in every form the system resolver accepts (`127.1`, `0x7f.0.0.1`, `2130706433`), since
that is what a connection would reach.

The address is checked when the connection is made, by the resolver the HTTP client uses, not
only when the URL is saved: a name that resolved to a public address yesterday may resolve to
127.0.0.1 today (DNS rebinding). A URL naming an address literally is checked before the
request, since aiohttp does not ask the resolver about literal addresses.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from libs.common.settings import SettingsError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_V6 = ipaddress.IPv6Network


def _low32(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)


def _sixtofour(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address((int(address) >> 80) & 0xFFFFFFFF)


Carried = Callable[[ipaddress.IPv6Address], ipaddress.IPv4Address]


# Prefixes whose addresses stand for the IPv4 address they carry: the verdict is that address's.
TRANSLATING: tuple[tuple[ipaddress.IPv6Network, str, Carried], ...] = (
    (_V6("::ffff:0:0/96"), "IPv4-mapped", _low32),
    (_V6("::ffff:0:0:0/96"), "IPv4-translated (SIIT)", _low32),
    (_V6("64:ff9b::/96"), "NAT64 well-known prefix", _low32),
    (_V6("2002::/16"), "6to4", _sixtofour),
)

# Prefixes refused whatever they carry: tunnels to wherever their embedded addresses say, forms
# deprecated for decades, and the local-use NAT64 prefix whose embedding only its operator knows.
REFUSED: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_V6("::/96"), "IPv4-compatible (deprecated)"),
    (_V6("2001::/32"), "Teredo"),
    (_V6("64:ff9b:1::/48"), "local-use NAT64"),
    (_V6("fec0::/10"), "site-local (deprecated)"),
)


class RefusedAddress(OSError):
    """A host is (or resolves to) an address the product may not reach."""


def parse_networks(name: str, text: str) -> tuple[Network, ...]:
    """CIDRs from a comma- or space-separated list (`127.0.0.0/8, ::1/128`)."""
    try:
        return tuple(ipaddress.ip_network(part.strip()) for part in text.replace(",", " ").split() if part.strip())
    except ValueError as exc:
        raise SettingsError(f"environment variable {name} must list CIDRs: {exc}") from None


def _not_global(address: Address) -> bool:
    return (
        not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


def is_internal(address: Address) -> bool:
    """Whether a connection to `address` may reach something that is not the public Internet."""
    if isinstance(address, ipaddress.IPv4Address):
        return _not_global(address)
    if address.scope_id:
        return True
    for network, _name, carried in TRANSLATING:
        if address in network:
            return is_internal(carried(address))
    if any(address in network for network, _name in REFUSED):
        return True
    return _not_global(address)


def allowed(address: Address, allowed_networks: Sequence[Network]) -> bool:
    """Public, or inside a network a setting allows (matched as written: an allowed 127.0.0.0/8
    does not let its 6to4 or NAT64 forms through)."""
    return not is_internal(address) or any(address in network for network in allowed_networks)


_LEGACY_IPV4 = re.compile(r"^(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]+|[0-9]+)){0,3}$", re.IGNORECASE)


def literal_address(host: str) -> Address | None:
    """The address a host names literally, in any form the resolver would accept, or None for a
    name."""
    text = host.strip("[]").rstrip(".")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if _LEGACY_IPV4.match(text):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def check_host(host: str, allowed_networks: Sequence[Network]) -> None:
    """Refuse a literal address that is internal; a name is the resolver's to check."""
    address = literal_address(host)
    if address is not None and not allowed(address, allowed_networks):
        raise RefusedAddress(f"{address} is an internal address")


def url_problem(url: str, allow_http: bool, allowed_networks: Sequence[Network]) -> str | None:
    """Why `url` cannot be an outbound address, or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError:
        return "not a valid URL"
    schemes = ("https", "http") if allow_http else ("https",)
    if parts.scheme not in schemes:
        return "must be an https URL" if not allow_http else "must be an http or https URL"
    if not parts.hostname:
        return "must name a host"
    if parts.username or parts.password:
        return "must not hold credentials"
    try:
        check_host(parts.hostname, allowed_networks)
    except RefusedAddress as exc:
        return str(exc)
    name = parts.hostname.rstrip(".")
    if name in ("localhost", "localhost.localdomain") or name.endswith(".localhost"):
        return None if allowed(ipaddress.ip_address("127.0.0.1"), allowed_networks) else "names this machine"
    return None


class SafeResolver(AbstractResolver):
    """Resolves as aiohttp would, then drops every address the policy refuses; a host left with
    none is refused (a connection error)."""

    def __init__(self, allowed_networks: Sequence[Network], resolver: AbstractResolver | None = None) -> None:
        self._resolver = resolver or DefaultResolver()
        self._allowed = tuple(allowed_networks)

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        answers: list[ResolveResult] = await self._resolver.resolve(host, port, family)
        kept = [answer for answer in answers if allowed(ipaddress.ip_address(answer["host"]), self._allowed)]
        if not kept:
            raise RefusedAddress(f"{host} resolves to an internal address")
        return kept

    async def close(self) -> None:
        await self._resolver.close()
