"""Pass-through to an App domain's origin: what the edge does not serve itself goes to the
customer's own site, and only there.

The request's method, path and query, body and headers go on (hop-by-hop headers removed,
`X-Forwarded-For`, `-Proto` and `-Host` set, `Host` the origin's); the answer comes back as it
comes, both bodies streamed, never read whole. The origin's address is checked when the
connection is made by the address policy webhooks use (loopback, private, link-local and every
other non-global address refused unless EDGE_ORIGIN_ALLOWED_NETWORKS allows it), so a hostname
re-pointed at an internal address is refused as one written so. Redirects are passed on, not
followed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from libs.common import address_policy
from libs.common.client_address import Network

# RFC 9110 7.6.1, and the proxy headers of old.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
# What the edge sets itself on the way to the origin.
SET_BY_EDGE = frozenset({"host", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "forwarded"})
CHUNK = 64 * 1024


class OriginRefused(Exception):
    """The origin is not an address the edge may reach (or not a URL at all)."""


def origin_base(origin: str) -> str:
    """The scheme and authority of an App domain's `origin` (`https://` when it names none)."""
    raw = origin.strip()
    parts = urlsplit(raw if "://" in raw else f"https://{raw}")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise OriginRefused("the origin is not an http or https address")
    try:
        parts.port  # noqa: B018 - a port that does not parse is no origin
    except ValueError:
        raise OriginRefused("the origin's port is not a number") from None
    return f"{parts.scheme}://{parts.netloc}"


def _dropped(headers: Any) -> frozenset[str]:
    """The hop-by-hop headers of a message: the standard ones and those its Connection names."""
    named = {token.strip().lower() for value in headers.getall("Connection", ()) for token in value.split(",")}
    return HOP_BY_HOP | named


class Origins:
    """The client of every origin: one connection pool, the address policy in its resolver."""

    def __init__(self, allowed_networks: Sequence[Network], connect_timeout: float, timeout: float) -> None:
        self._allowed = tuple(allowed_networks)
        self._timeout = aiohttp.ClientTimeout(total=timeout, sock_connect=connect_timeout)
        self._session: aiohttp.ClientSession | None = None

    @asynccontextmanager
    async def open(self) -> AsyncIterator[Origins]:
        connector = aiohttp.TCPConnector(limit=1000, resolver=address_policy.SafeResolver(self._allowed))
        async with aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
        ) as session:
            self._session = session
            yield self

    def _check(self, base: str) -> None:
        """Refuse an origin written as an internal address; a name is the resolver's to check."""
        try:
            address_policy.check_host(urlsplit(base).hostname or "", self._allowed)
        except address_policy.RefusedAddress as exc:
            raise OriginRefused(str(exc)) from None

    async def forward(
        self, request: web.Request, origin: str, client: str, scheme: str, host: str
    ) -> web.StreamResponse:
        """Send `request` to `origin` and stream its answer back; OriginRefused, or aiohttp's errors."""
        assert self._session is not None, "Origins.open() first"
        base = origin_base(origin)
        self._check(base)
        dropped = _dropped(request.headers)
        headers = CIMultiDict(
            (name, value)
            for name, value in request.headers.items()
            if name.lower() not in dropped and name.lower() not in SET_BY_EDGE
        )
        forwarded_for = ", ".join([*request.headers.getall("X-Forwarded-For", ()), client])
        headers.update({"X-Forwarded-For": forwarded_for, "X-Forwarded-Proto": scheme, "X-Forwarded-Host": host})
        body = request.content if request.body_exists else None
        # The raw path and query as the client wrote them: the origin reads its own URLs.
        url = base + request.raw_path
        try:
            upstream = await self._session.request(
                request.method, url, headers=headers, data=body, allow_redirects=False, timeout=self._timeout
            )
        except address_policy.RefusedAddress as exc:
            raise OriginRefused(str(exc)) from None
        except aiohttp.ClientConnectorError as exc:
            if isinstance(exc.os_error, address_policy.RefusedAddress):
                raise OriginRefused(str(exc.os_error)) from None
            raise
        async with upstream:
            dropped = _dropped(upstream.headers)
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in upstream.headers.items():
                if name.lower() not in dropped and name.lower() != "content-length":
                    response.headers.add(name, value)
            if upstream.content_length is not None and request.method != "HEAD":
                response.content_length = upstream.content_length
            await response.prepare(request)
            async for chunk in upstream.content.iter_chunked(CHUNK):
                await response.write(chunk)
            await response.write_eof()
            return response
