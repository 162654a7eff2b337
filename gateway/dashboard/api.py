"""The dashboard's calls to the API: a route of the table, run for the signed-in person by the
same rules as a request with their session cookie.

`call(request, "apps_get", appId=...)` finds the route by name, identifies the caller from the
session (the Authenticator's cookie path: the role's scopes, a removed membership refused within
a second), spends the rate limit, checks the scope (403) and the tenancy (404), then sends one
request with the signed internal token to the route's part and answers its `data`; a route
answering text instead of JSON (an app's llms.txt) is run by `call_text`. No page reads
another part's tables: what a page shows is what the API would answer its user.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import web

from gateway.edge.proxy import admit, check_scope, tenancy_of
from gateway.edge.route_table import ROUTES
from gateway.identity import Identity
from gateway.state import AUTHENTICATOR, DIRECTORY, LIMITER
from libs.common.encoding import JSON_CONTENT_TYPE, dumps, loads
from libs.common.http_client import upstream_error
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.middlewares import REQUEST_ID_HEADER
from libs.common.state import HTTP, REQUEST_ID, SETTINGS
from libs.contract.route import Route

BY_NAME: dict[str, Route] = {route.name: route for route in ROUTES}
IDENTITY: web.RequestKey[Identity] = web.RequestKey("dashboard_identity", Identity)

Query = Mapping[str, str | int | bool | None] | Sequence[tuple[str, str]]


async def identity(request: web.Request) -> Identity:
    """Who the session acts as, in the organization it acts in, with the role's scopes."""
    if IDENTITY not in request:
        request[IDENTITY] = await request.config_dict[AUTHENTICATOR].identify(request)
    return request[IDENTITY]


async def permits(request: web.Request, name: str) -> bool:
    """Whether the signed-in person may run the route `name` (a page shows no button it cannot use)."""
    route = BY_NAME[name]
    return route.scope is None or route.scope in (await identity(request)).scopes


async def require(request: web.Request, name: str) -> Identity:
    """The route `name`'s scope stage, for a page that offers what the route does (its form) before
    calling it: the API's own 403, whose message the page shows."""
    caller = await identity(request)
    check_scope(caller, BY_NAME[name])
    return caller


def _query_pairs(query: Query | None) -> list[tuple[str, str]]:
    if query is None:
        return []
    items = query.items() if isinstance(query, Mapping) else query
    pairs = []
    for name, value in items:
        if value is None or value == "":
            continue
        pairs.append((name, ("true" if value else "false") if isinstance(value, bool) else str(value)))
    return pairs


async def call(request: web.Request, name: str, *, query: Query | None = None, json: Any = None, **path: str) -> Any:
    """Run the JSON route `name` for the signed-in person; its `data`, or the error it answered."""
    route = BY_NAME[name]
    if not route.enveloped:
        raise TypeError(f"{name} answers {route.media_type}: use call_text")
    body = await _send(request, route, query, json, path)
    return loads(body) if body else None


async def call_text(request: web.Request, name: str, *, query: Query | None = None, **path: str) -> str:
    """Run the route `name` that answers text (llms.txt, markdown, XML) for the signed-in person;
    its body as text, or the error it answered (in the JSON envelope, as every error)."""
    route = BY_NAME[name]
    if route.enveloped:
        raise TypeError(f"{name} answers JSON: use call")
    return (await _send(request, route, query, None, path)).decode("utf-8", errors="replace")


async def _send(request: web.Request, route: Route, query: Query | None, json: Any, path: dict[str, str]) -> bytes:
    """One request of `route` for the signed-in person: the scope, tenancy and rate checks, then
    the part's answer body (its error raised)."""
    state = request.config_dict
    caller = await identity(request)
    admit(state[LIMITER], caller, route)
    pairs = _query_pairs(query)
    body = dumps(json) if json is not None else b""
    product = await tenancy_of(state[DIRECTORY], route.method, route, caller, path, dict(pairs), body)
    target = route.path.format(**{key: quote(value, safe="") for key, value in path.items()})
    request_id = request[REQUEST_ID]
    headers = {
        INTERNAL_TOKEN_HEADER: state[HTTP].token(caller.caller(request_id, product)),
        REQUEST_ID_HEADER: request_id,
        "Accept": route.media_type,
    }
    if json is not None:
        headers["Content-Type"] = JSON_CONTENT_TYPE
    upstream = state[SETTINGS].upstreams[route.upstream]
    raw = await state[HTTP].send(
        route.method,
        upstream + target + ("?" + urlencode(pairs) if pairs else ""),
        headers=headers,
        body=body or None,
        timeout=route.timeout,
        retry=route.retry_safe,
    )
    if raw.status >= 400:
        raise upstream_error(raw)
    return raw.body
