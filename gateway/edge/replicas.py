"""Search requests routed by organization: consistent hashing over the search replicas.

A search replica holds the vectors of the organizations it has served in memory. Sent anywhere,
every replica would end up holding every active organization; routed by organization, each
organization's vectors live in one replica (its owner on the hash ring), or two while the owner
does not answer (the next replica on the ring takes its requests). Adding or removing a replica
moves only the organizations it takes or gives up.

`SEARCH_REPLICAS` names the replicas: base URLs separated by commas, or `dns+http://NAME:PORT`
for every address NAME resolves to (a headless Service), looked up again every few seconds.
Unset, search goes to `SEARCH_URL` as every other part does.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import ipaddress
import logging
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from gateway.edge.proxy import Checked, Respond, forward_to
from libs.common import errors
from libs.contract.route import Route

log = logging.getLogger(__name__)

VIRTUAL_NODES = 128  # points per replica on the ring: evens the shares out to a few percent
DOWN_SECONDS = 5.0  # a replica that refused a connection is skipped this long
REFRESH_SECONDS = 5.0
DNS_SCHEME = "dns+"


def base_url(scheme: str, host: str, port: int) -> str:
    """A replica's base URL: an IPv6 address in brackets (`http://[fd00::1]:8084`), names lower-cased."""
    with_brackets = f"[{host}]" if ":" in host else host.lower()
    return f"{scheme.lower()}://{with_brackets}:{port}"


def normalized(url: str) -> str:
    """One spelling of a replica's URL (`HTTP://Search-1:8084/` and `http://search-1:8084` are one
    replica, the port always written), so a replica is never on the ring twice."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.hostname:
        raise ValueError(f"SEARCH_REPLICAS: {url!r} is not a base URL (http://HOST:PORT)")
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    return base_url(parts.scheme, parts.hostname, port) + parts.path.rstrip("/")


def resolved_urls(scheme: str, port: int, infos: Sequence[tuple[Any, ...]]) -> set[str]:
    """The replicas a name resolved to, once each. A dual-stack headless Service answers an IPv4
    and an IPv6 address for every pod: only one family is kept (IPv4 when there is any), or each
    pod would be on the ring twice."""
    addresses = {ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in infos}
    family = 4 if any(address.version == 4 for address in addresses) else 6
    return {base_url(scheme, str(address), port) for address in addresses if address.version == family}


def _point(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


class Ring:
    """A consistent-hash ring of replica URLs."""

    def __init__(self, members: Iterable[str], virtual_nodes: int = VIRTUAL_NODES) -> None:
        self.members = tuple(sorted(set(members)))
        points = sorted((_point(f"{member}#{n}"), member) for member in self.members for n in range(virtual_nodes))
        self._hashes = [point for point, _ in points]
        self._owners = [member for _, member in points]

    def order(self, key: str) -> list[str]:
        """Every member, in the order `key` falls to them: its owner first, then the fallbacks."""
        found: list[str] = []
        start = bisect.bisect(self._hashes, _point(key))
        for index in range(len(self._owners)):
            member = self._owners[(start + index) % len(self._owners)]
            if member not in found:
                found.append(member)
                if len(found) == len(self.members):
                    break
        return found


class Replicas:
    """The search replicas the gateway routes to, and which of them recently did not answer."""

    def __init__(self, spec: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._down: dict[str, float] = {}
        self._dns: tuple[str, str, int] | None = None
        if spec.startswith(DNS_SCHEME):
            parts = urlsplit(spec.removeprefix(DNS_SCHEME))
            if not parts.hostname or not parts.port:
                raise ValueError(f"SEARCH_REPLICAS {spec!r} must be dns+http://NAME:PORT")
            self._dns = (parts.scheme, parts.hostname, parts.port)
            self.ring = Ring(())
        else:
            self.ring = Ring(normalized(url) for url in spec.split(",") if url.strip())

    @property
    def resolves(self) -> bool:
        return self._dns is not None

    async def refresh(self) -> None:
        """Look the replicas' name up again (a headless Service lists its ready pods)."""
        if self._dns is None:
            return
        scheme, host, port = self._dns
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        members = resolved_urls(scheme, port, infos)
        if members != set(self.ring.members):
            log.info("search replicas: %s", ", ".join(sorted(members)))
            self.ring = Ring(members)

    def candidates(self, organization_id: str) -> list[str]:
        """The owner and one fallback, replicas that recently refused left to last."""
        now = self._clock()
        order = self.ring.order(organization_id)
        return sorted(order, key=lambda url: self._down.get(url, 0.0) > now)[:2]

    def mark_down(self, url: str) -> None:
        self._down[url] = self._clock() + DOWN_SECONDS


def routed_by_organization(replicas: Replicas, fallback_url: str, route: Route) -> Respond:
    """Forward to the organization's replica; to the next one when it does not answer at all
    (refused or dropped before any answer, so the request never ran there)."""

    async def respond(request: web.Request, checked: Checked) -> web.Response:
        urls = replicas.candidates(checked.identity.organization.id) or [fallback_url]
        for url in urls[:-1]:
            try:
                return await forward_to(url, route)(request, checked)
            except errors.UpstreamUnreachable:
                replicas.mark_down(url)
        return await forward_to(urls[-1], route)(request, checked)

    return respond
