"""The HTTP client parts use to call each other (and the gateway to call upstreams).

Timeouts on every call; one retry, for idempotent methods only, when the connection was refused
or dropped before any answer (a restarting pod), so a retried request can never apply twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from multidict import CIMultiDictProxy

from libs.common import errors
from libs.common.encoding import JSON_CONTENT_TYPE, dumps, loads
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Caller, mint
from libs.common.keys import HTTP, SETTINGS

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_DELAY_SECONDS = 0.05
DEFAULT_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class RawResponse:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes


def upstream_error(response: RawResponse) -> errors.ApiError:
    """What another part's failed answer means to our caller: the error it answered, passed on,
    or a 502/503/504 when its answer is not one of ours. The one policy of the gateway and of
    parts calling each other."""
    try:
        payload = loads(response.body) if response.body else None
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("code"), str) and isinstance(payload.get("message"), str):
        known = errors.error_for_status(response.status)
        if known.status == response.status and known.code == payload["code"]:
            # As its own class, so a caller can tell a NotFound from a Conflict.
            return known(payload["message"], payload.get("details"))
        return errors.UpstreamError(response.status, payload["code"], payload["message"], payload.get("details"))
    if response.status == 503:
        return errors.ServiceUnavailable("upstream not ready")
    if response.status == 504:
        return errors.UpstreamTimeout()
    return errors.BadGateway(f"upstream answered {response.status} without an error body")


def _retryable(exc: aiohttp.ClientError) -> bool:
    if isinstance(exc, aiohttp.ClientConnectorError):
        return isinstance(exc.os_error, ConnectionRefusedError)
    return isinstance(exc, aiohttp.ServerDisconnectedError)


class InternalClient:
    """A thin layer over one shared `aiohttp.ClientSession`."""

    def __init__(self, session: aiohttp.ClientSession, token_secret: str) -> None:
        self._session = session
        self._token_secret = token_secret

    async def send(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> RawResponse:
        """Send one request; failures become 502 (unreachable) or 504 (too slow)."""
        attempts = 2 if method in IDEMPOTENT_METHODS else 1
        client_timeout = aiohttp.ClientTimeout(total=timeout)
        for attempt in range(1, attempts + 1):
            try:
                async with self._session.request(
                    method, url, headers=headers, data=body, timeout=client_timeout, allow_redirects=False
                ) as response:
                    return RawResponse(response.status, response.headers, await response.read())
            except TimeoutError:
                raise errors.UpstreamTimeout(f"upstream did not answer within {timeout:g}s") from None
            except aiohttp.ClientError as exc:
                if attempt < attempts and _retryable(exc):
                    await asyncio.sleep(RETRY_DELAY_SECONDS)
                    continue
                raise errors.BadGateway("upstream unreachable") from None
        raise AssertionError("unreachable: the loop returns or raises")

    async def call(
        self,
        method: str,
        url: str,
        caller: Caller,
        *,
        json: Any = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> Any:
        """Call another part's endpoint as `caller`; return its JSON, or raise the error it answered."""
        headers = {INTERNAL_TOKEN_HEADER: mint(self._token_secret, caller), "Accept": JSON_CONTENT_TYPE}
        body = None
        if json is not None:
            headers["Content-Type"] = JSON_CONTENT_TYPE
            body = dumps(json)
        if caller.request_id:
            headers["X-Request-Id"] = caller.request_id
        response = await self.send(method, url, headers=headers, body=body, timeout=timeout)
        if response.status >= 400:
            raise upstream_error(response)
        try:
            return loads(response.body) if response.body else None
        except ValueError:
            raise errors.BadGateway("upstream answered with a body that is not JSON") from None


def client_session(limit: int = 100) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=limit, keepalive_timeout=30),
        json_serialize=lambda value: dumps(value).decode(),
        auto_decompress=False,
    )


async def http_client_ctx(app: web.Application) -> AsyncIterator[None]:
    """The shared client session, opened at startup and closed at cleanup."""
    async with client_session() as session:
        app[HTTP] = InternalClient(session, app[SETTINGS].internal_token_secret)
        yield
