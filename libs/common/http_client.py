"""The HTTP client parts use to call each other (and the gateway to call upstreams).

Timeouts on every call; one retry, for requests safe to send twice only, when the connection was
refused or broke before any answer (a restarting pod, a worker that died with requests in
flight). The retry goes out on a fresh connection, never another kept-alive one that may lead to
the same dead worker, and within the same deadline as the first attempt.
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web
from marshmallow import Schema
from multidict import CIMultiDictProxy

from libs.common import errors
from libs.common.encoding import JSON_CONTENT_TYPE, dumps, loads
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Caller, Minter
from libs.common.logs import route_var
from libs.common.metrics import UPSTREAM_FAILURES, UPSTREAM_RETRIES
from libs.common.state import HTTP, SETTINGS
from libs.contract.internal import Endpoint

# Sent twice when nothing says otherwise (calls between parts); the gateway decides per route.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_DELAY_SECONDS = 0.05
DEFAULT_TIMEOUT_SECONDS = 10.0
# How long a part keeps an idle connection open (gunicorn's `keepalive`, deploy/gunicorn_conf.py,
# and the gateway's own server), and how long a caller keeps one for another request: well
# inside the part's, so a request is never sent on a connection the part is closing (it would
# fail, and a write is never sent twice).
PART_KEEPALIVE_SECONDS = 2
UPSTREAM_KEEPALIVE_SECONDS = PART_KEEPALIVE_SECONDS / 2
_NO_CLIENT_TIMEOUT = aiohttp.ClientTimeout()


@dataclass(frozen=True)
class RawResponse:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes


def _count_failure(url: str, kind: str, route: str | None = None) -> None:
    UPSTREAM_FAILURES.labels(route or route_var.get(), urlsplit(url).netloc, kind).inc()


def _failure_kind(exc: aiohttp.ClientError) -> str:
    if isinstance(exc, aiohttp.ClientConnectorError) and isinstance(exc.os_error, ConnectionRefusedError):
        return "refused"
    return "unreachable"


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
        error: errors.ApiError
        if known.status == response.status and known.code == payload["code"]:
            # As its own class, so a caller can tell a NotFound from a Conflict.
            error = known(payload["message"], payload.get("details"))
        else:
            error = errors.UpstreamError(response.status, payload["code"], payload["message"], payload.get("details"))
        if response.status == 503:  # the part's own advice on when to retry, passed on
            error.headers["Retry-After"] = response.headers.get("Retry-After", str(errors.RETRY_AFTER_SECONDS))
        return error
    if response.status == 503:
        return errors.ServiceUnavailable("upstream not ready")
    if response.status == 504:
        return errors.UpstreamTimeout()
    return errors.BadGateway(f"upstream answered {response.status} without an error body")


class StreamedResponse:
    """A success whose body is still arriving: `pieces()` yields it as it comes, once; `close()`
    drops it unread."""

    def __init__(self, response: aiohttp.ClientResponse, url: str) -> None:
        self.status = response.status
        self.headers = response.headers
        self._response = response
        self._url = url
        # The body is read after the handler has returned, outside the route's logging context.
        self._route = route_var.get()

    async def pieces(self) -> AsyncIterator[bytes]:
        """An upstream that breaks off, or pauses past the timeout, raises here, so whoever passes
        the body on breaks off too rather than end it as if it were complete."""
        try:
            async for piece in self._response.content.iter_any():
                yield piece
        except TimeoutError:
            _count_failure(self._url, "timeout", self._route)
            raise
        except aiohttp.ClientError as exc:
            _count_failure(self._url, _failure_kind(exc), self._route)
            raise
        finally:
            self._response.release()

    def close(self) -> None:
        self._response.close()


Answer = TypeVar("Answer", RawResponse, RawResponse | StreamedResponse)


async def _read(response: aiohttp.ClientResponse, url: str) -> RawResponse:
    async with response:
        return RawResponse(response.status, response.headers, await response.read())


async def _read_or_stream(response: aiohttp.ClientResponse, url: str) -> RawResponse | StreamedResponse:
    if response.status >= 400 or response.content_length is not None:
        return await _read(response, url)
    return StreamedResponse(response, url)


def _retryable(exc: aiohttp.ClientError) -> bool:
    """Whether the request certainly got no answer: refused, or its connection closed or reset."""
    if isinstance(exc, aiohttp.ClientConnectorError):
        return isinstance(exc.os_error, ConnectionRefusedError)
    if isinstance(exc, aiohttp.ClientOSError):
        return exc.errno in (errno.ECONNRESET, errno.EPIPE)
    return isinstance(exc, aiohttp.ServerDisconnectedError | aiohttp.ClientConnectionResetError)


class InternalClient:
    """A thin layer over the shared `aiohttp.ClientSession`s (kept-alive connections; fresh ones for retries)."""

    def __init__(self, session: aiohttp.ClientSession, fresh: aiohttp.ClientSession, token_secret: str) -> None:
        self._session = session
        # Never keeps a connection: a retry must not ride a kept-alive one to the worker that died.
        self._fresh = fresh
        self._minter = Minter(token_secret)

    def token(self, caller: Caller) -> str:
        """The signed internal token for `caller`, reused for a few seconds (see internal_token)."""
        return self._minter.token(caller)

    async def send(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        retry: bool | None = None,
    ) -> RawResponse:
        """Send one request and read its answer; failures become 502 (unreachable) or 504 (too slow).
        `retry`: whether it may be sent twice (default: by its method, IDEMPOTENT_METHODS)."""
        # The exchange's own deadline bounds the whole of it: no second timer of aiohttp's.
        return await self._exchange(method, url, headers, body, timeout, retry, _NO_CLIENT_TIMEOUT, _read)

    async def stream(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        retry: bool | None = None,
    ) -> RawResponse | StreamedResponse:
        """Like `send`, but a success answered without a Content-Length (a part streaming a long
        list) is passed on as it arrives rather than read whole: its headers must come within
        `timeout`, and then no pause between two pieces of its body may last longer."""
        client_timeout = aiohttp.ClientTimeout(sock_connect=timeout, sock_read=timeout)
        return await self._exchange(method, url, headers, body, timeout, retry, client_timeout, _read_or_stream)

    async def _exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str] | None,
        body: bytes | None,
        timeout: float,
        retry: bool | None,
        client_timeout: aiohttp.ClientTimeout,
        take: Callable[[aiohttp.ClientResponse, str], Awaitable[Answer]],
    ) -> Answer:
        """One request (retried as the module says), its answer taken by `take` within `timeout`."""

        async def request(session: aiohttp.ClientSession) -> aiohttp.ClientResponse:
            return await session.request(
                method, url, headers=headers, data=body, timeout=client_timeout, allow_redirects=False
            )

        try:
            async with asyncio.timeout(timeout):
                try:
                    response = await request(self._session)
                except aiohttp.ClientError as exc:
                    if not _retryable(exc) or not (method in IDEMPOTENT_METHODS if retry is None else retry):
                        raise
                    UPSTREAM_RETRIES.labels(route_var.get(), urlsplit(url).netloc).inc()
                    await asyncio.sleep(RETRY_DELAY_SECONDS)
                    response = await request(self._fresh)
                if response.status == 503:
                    _count_failure(url, "not_ready")
                return await take(response, url)
        except TimeoutError:
            _count_failure(url, "timeout")
            raise errors.UpstreamTimeout(f"upstream did not answer within {timeout:g}s") from None
        except aiohttp.ClientError as exc:
            _count_failure(url, _failure_kind(exc))
            raise errors.UpstreamUnreachable() from None

    async def request(
        self,
        endpoint: Endpoint,
        base_url: str,
        caller: Caller,
        *,
        body: Mapping[str, Any] | None = None,
        query: Mapping[str, Any] | Iterable[tuple[str, str]] = (),
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        **parameters: str,
    ) -> Any:
        """Call a declared internal endpoint of the part at `base_url` as `caller`, with the method
        its declaration names and the body and query built through its declared ones (`body` and a
        `query` mapping by their schemas' attribute names; a query its owning part declares goes as
        the pairs its route takes); return its JSON, or raise the error it answered."""
        if isinstance(query, Mapping):
            pairs = endpoint.query_of(query)
        elif isinstance(endpoint.query, Schema):
            raise TypeError(f"{endpoint.name}: its query is built through its declared schema")
        else:
            pairs = list(query)
        url = endpoint.url(base_url, pairs, **parameters)
        json = None if body is None else endpoint.body_of(body)
        return await self.call(endpoint.method, url, caller, json=json, timeout=timeout)

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
        headers = {INTERNAL_TOKEN_HEADER: self._minter.token(caller), "Accept": JSON_CONTENT_TYPE}
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


def client_session(limit: int = 100, *, keep_alive: bool = True) -> aiohttp.ClientSession:
    """Kept-alive connections (unless `keep_alive` is false), each for UPSTREAM_KEEPALIVE_SECONDS;
    no cookies (a service's Set-Cookie must never reach another caller's request) and none of
    aiohttp's default headers (nothing upstream reads them; the bodies are passed on as they
    come, so they must never arrive compressed)."""
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(
            limit=limit,
            keepalive_timeout=UPSTREAM_KEEPALIVE_SECONDS if keep_alive else None,
            force_close=not keep_alive,
        ),
        cookie_jar=aiohttp.DummyCookieJar(),
        skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding"),
        json_serialize=lambda value: dumps(value).decode(),
        auto_decompress=False,
    )
    # aiohttp would otherwise send PUT and DELETE again by itself, on whatever pooled connection
    # comes next, when a kept-alive one breaks: writes the gateway must never repeat. Retrying is
    # InternalClient's decision alone. There is no public switch (aiohttp's own TestClient sets it).
    session._retry_connection = False
    return session


@asynccontextmanager
async def internal_client(token_secret: str) -> AsyncIterator[InternalClient]:
    """An `InternalClient` over its two sessions (kept-alive connections, and fresh ones for retries)."""
    async with client_session() as session, client_session(keep_alive=False) as fresh:
        yield InternalClient(session, fresh, token_secret)


async def http_client_ctx(app: web.Application) -> AsyncIterator[None]:
    """The shared client, opened at startup and closed at cleanup."""
    async with internal_client(app[SETTINGS].internal_token_secret) as client:
        app[HTTP] = client
        yield
