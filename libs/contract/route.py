"""The public contract of a part, declared once: each route with everything the gateway and the
OpenAPI document need, and the registration of a service's handlers against those declarations.

Each part lists its routes in its `contract.py` (pure declarations: no handler, no query). The
service registers its handlers from that list by name (each handler function is named as its
route); the gateway's table
(gateway/edge/route_table.py) is the concatenation of the lists, compiled into its checks and into
the OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol, TypeVar

from aiohttp import web
from aiohttp.typedefs import Handler
from marshmallow import Schema

DEFAULT_TIMEOUT_SECONDS = 10.0
JSON_MEDIA_TYPE = "application/json"
# The contract marks its deprecated routes so from version 0.1.0 on (RFC 9745 `Deprecation` date).
CONTRACT_DATE = date(2026, 11, 1)
# Legacy routing stops responding after 2026-12-15 (contract, "Versioning").
LEGACY_ROUTING_SUNSET = datetime(2026, 12, 15, 23, 59, 59, tzinfo=UTC)


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    # The part that serves the route (a name of libs/contract/parts.py).
    upstream: str
    # The scope a credential needs; None: any verified credential may call the route.
    scope: str | None
    name: str
    summary: str
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    # The service may stream its answer (a long list): the gateway then passes the body on as it
    # arrives, inside the envelope, instead of reading it whole; `timeout` bounds the wait for the
    # answer's headers and each pause in its body, not the whole transfer.
    streamed: bool = False
    # The request only reads, whatever its method (a search sent as POST): the gateway may send it
    # once more when the upstream connection broke before any answer (GET and HEAD always may).
    read_only: bool = False
    # Tenancy checks at the edge: a path parameter holding an organization id, and a path
    # parameter, query parameter or top-level body field holding a product id; another
    # organization's id is 404.
    org_param: str | None = None
    product_param: str | None = None
    product_query: str | None = None
    product_body: str | None = None
    # A top-level body field naming a product that the service judges itself (a product to add
    # as a resource, say; another organization's is the service's 422, not the gateway's 404).
    # The gateway reads it from its own database and names it in the internal token when it is a
    # live product of the caller's organization; otherwise the token names no product.
    product_reference: str | None = None
    # Lifecycle: deprecated since, the successor to point at, the moment it stops answering.
    deprecated: date | None = None
    successor: str | None = None
    sunset: datetime | None = None
    # The answer is one resource carrying a strong `ETag` of its version: a GET honours
    # `If-None-Match` (304).
    versioned: bool = False
    # The write honours `If-Match` (412 on a stale tag), checked by the service under the row's
    # lock in the write's transaction. The gateway refuses the header on every other write (400):
    # a condition silently ignored would let a stale client delete what it never saw.
    if_match: bool = False
    # OpenAPI.
    query: type[Schema] | None = None
    body: type[Schema] | None = None
    # The body is a JSON array of `body` items, of at most this many (a batch); 0: one `body` object.
    body_many: int = 0
    # The body may be left out (an empty request): the handler then uses the body's defaults.
    body_optional: bool = False
    response: type[Schema] | None = None
    response_many: bool = False
    status: int = 200
    # The media type of a success answer. Any other than JSON (an App's llms.txt, its sitemap) is
    # passed on by the gateway as the service wrote it, outside the envelope; errors stay enveloped.
    media_type: str = JSON_MEDIA_TYPE
    # The documented error statuses, when the operation's contract lists them; otherwise
    # gateway/edge/openapi.py derives them from the route.
    errors: tuple[int, ...] | None = None
    tag: str = ""

    @property
    def retry_safe(self) -> bool:
        """Whether sending the request twice is harmless: it reads, by its method or its declaration."""
        return self.read_only or self.method in ("GET", "HEAD")

    @property
    def enveloped(self) -> bool:
        """Whether a success answer is JSON, given to the client inside the envelope."""
        return self.media_type == JSON_MEDIA_TYPE


class ContractMismatch(RuntimeError):
    """A declared route without a handler, or a handler without a declared route."""


class Declared(Protocol):
    """What registering a handler needs of a declaration: a public `Route` or an internal `Endpoint`."""

    @property
    def method(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def name(self) -> str: ...


D = TypeVar("D", bound=Declared)
H = TypeVar("H", bound=Callable[..., Any])


def bind_handlers(routes: Iterable[D], handlers: Iterable[H]) -> list[tuple[D, H]]:
    """Each route with the handler of its name (the function's own name, so the name is written
    once, in the declaration); any route or handler left over is an error."""
    routes = tuple(routes)
    by_name = {handler.__name__: handler for handler in handlers}
    declared = {route.name for route in routes}
    unhandled = sorted(declared - by_name.keys())
    undeclared = sorted(by_name.keys() - declared)
    if unhandled or undeclared:
        raise ContractMismatch(f"routes without a handler: {unhandled}; handlers without a route: {undeclared}")
    return [(route, by_name[route.name]) for route in routes]


def register_handlers(router: web.UrlDispatcher, routes: Iterable[Declared], handlers: Iterable[Handler]) -> None:
    """Add every declared route to `router` with the handler of its name, in declaration order."""
    for route, handler in bind_handlers(routes, handlers):
        router.add_route(route.method, route.path, handler, name=route.name)
