"""Where webhooks may go: https only (plain http where a setting allows), and never to an
internal address (loopback, private, link-local, ...) unless a setting allows its network.

The address is checked when the connection is made, by the resolver the delivery client uses,
not only when the endpoint is saved: a name that resolved to a public address yesterday may
resolve to 127.0.0.1 today (DNS rebinding). A URL naming an address literally is checked before
the request, since aiohttp does not ask the resolver about literal addresses.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from services.events.settings import Network

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class RefusedAddress(OSError):
    """The endpoint's host is (or resolves to) an address webhooks may not reach."""


def is_internal(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return is_internal(address.ipv4_mapped)
    return (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
    )


def allowed(address: Address, allowed_networks: Sequence[Network]) -> bool:
    return not is_internal(address) or any(address in network for network in allowed_networks)


def check_address(host: str, allowed_networks: Sequence[Network]) -> None:
    """Refuse a literal address that is internal; a name is the resolver's to check."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return
    if not allowed(address, allowed_networks):
        raise RefusedAddress(f"{address} is an internal address")


def url_problem(url: str, allow_http: bool, allowed_networks: Sequence[Network]) -> str | None:
    """Why `url` cannot be an endpoint's address, or None."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "not a valid URL"
    del port
    schemes = ("https", "http") if allow_http else ("https",)
    if parts.scheme not in schemes:
        return "must be an https URL" if not allow_http else "must be an http or https URL"
    if not parts.hostname:
        return "must name a host"
    if parts.username or parts.password:
        return "must not hold credentials"
    try:
        check_address(parts.hostname, allowed_networks)
    except RefusedAddress as exc:
        return str(exc)
    if parts.hostname in ("localhost", "localhost.localdomain") or parts.hostname.endswith(".localhost"):
        return None if allowed(ipaddress.ip_address("127.0.0.1"), allowed_networks) else "names this machine"
    return None


class SafeResolver(AbstractResolver):
    """Resolves as aiohttp would, then drops every address webhooks may not reach; a host left
    with none is refused (a connection error, recorded as the attempt's error)."""

    def __init__(self, allowed_networks: Sequence[Network]) -> None:
        self._resolver = DefaultResolver()
        self._allowed = tuple(allowed_networks)

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        answers: list[ResolveResult] = await self._resolver.resolve(host, port, family)
        kept = [answer for answer in answers if allowed(ipaddress.ip_address(answer["host"]), self._allowed)]
        if not kept:
            raise RefusedAddress(f"{host} resolves to an internal address")
        return kept

    async def close(self) -> None:
        await self._resolver.close()
