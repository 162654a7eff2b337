"""The route handlers compiled from the route table: check the caller, then answer.

Per request: lifecycle (410 after a sunset), credential, rate limit, scope, tenancy, then one
upstream call carrying the signed internal token, or the gateway's handler for its own routes.
The success body is spliced into the envelope as bytes; upstream errors and failures become
error envelopes.
"""

from __future__ import annotations

import asyncio
import calendar
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from email.utils import format_datetime
from functools import partial

from aiohttp import payload, web
from aiohttp.typedefs import Handler

from gateway.audit import AUDIT_ACTOR, Actor
from gateway.edge.envelope import ok_response_from_json, ok_streamed_response
from gateway.edge.idempotency import METHODS as IDEMPOTENT_METHODS
from gateway.edge.idempotency import idempotency_key
from gateway.edge.ratelimit import Decision, RateLimiter
from gateway.identity import Identity
from gateway.identity.auth.sessions import from_another_site
from gateway.identity.directory import Directory
from gateway.state import AUTHENTICATOR, CLOCK, DIRECTORY, IDEMPOTENCY, LIMITER
from libs.common import errors
from libs.common.encoding import loads
from libs.common.http_client import RawResponse, StreamedResponse, upstream_error
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Product
from libs.common.middlewares import REQUEST_ID_HEADER
from libs.common.state import ACCESS_FIELDS, HTTP, REQUEST_ID, SETTINGS
from libs.contract.route import JSON_MEDIA_TYPE, Route

# Only these client headers reach a service; identity travels in the internal token alone.
# The conditional ones are checked by the service owning the resource, atomically with its write.
FORWARDED_REQUEST_HEADERS = ("Content-Type", "Accept", "Accept-Language", "User-Agent", "If-Match", "If-None-Match")
PASSED_RESPONSE_HEADERS = ("Cache-Control", "ETag", "Last-Modified", "Location", "Link")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def lifecycle_headers(route: Route) -> dict[str, str]:
    """`Deprecation` (RFC 9745), `Sunset` (RFC 8594) and the successor link of a route."""
    headers = {}
    if route.deprecated is not None:
        headers["Deprecation"] = f"@{calendar.timegm(route.deprecated.timetuple())}"
    if route.sunset is not None:
        headers["Sunset"] = format_datetime(route.sunset, usegmt=True)
    if route.successor is not None:
        headers["Link"] = f'<{route.successor}>; rel="successor-version"'
    return headers


def _product_id_in_body(body: bytes, field: str) -> str | None:
    """The product id a JSON body names, if any; a body that is not JSON is the service's to refuse."""
    try:
        data = loads(body) if body else None
    except ValueError:
        return None
    value = data.get(field) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


async def check_tenancy(request: web.Request, route: Route, identity: Identity, body: bytes) -> Product | None:
    """404 for an organization or product id of another organization; the checked product otherwise.

    A write reads its product from the database, not the cache, so a product created or deleted
    by a call that has returned is honoured at once; reads take the cache's word (a poll behind).
    """
    directory = request.config_dict[DIRECTORY]
    return await tenancy_of(directory, request.method, route, identity, request.match_info, request.query, body)


async def tenancy_of(
    directory: Directory,
    method: str,
    route: Route,
    identity: Identity,
    path_params: Mapping[str, str],
    query: Mapping[str, str],
    body: bytes,
) -> Product | None:
    """`check_tenancy` for a call described by its parts (the dashboard's calls have no request of their own)."""
    organization_id = identity.organization.id
    if route.org_param is not None and path_params[route.org_param].lower() != organization_id:
        raise errors.NotFound("organization not found")
    fresh = method not in SAFE_METHODS
    if route.product_reference is not None:
        referenced = _product_id_in_body(body, route.product_reference)
        owned = await directory.product(referenced.lower(), fresh=fresh) if referenced else None
        return owned.product if owned is not None and owned.organization_id == organization_id else None
    product_id = None
    if route.product_param is not None:
        product_id = path_params[route.product_param]
    elif route.product_query is not None:
        product_id = query.get(route.product_query)
    elif route.product_body is not None:
        product_id = _product_id_in_body(body, route.product_body)
    if not product_id:
        return None
    owned = await directory.product(product_id.lower(), fresh=fresh)
    if owned is None or owned.organization_id != organization_id:
        raise errors.NotFound("product not found")
    return owned.product


async def read_body(request: web.Request, timeout: float) -> bytes:
    """The whole body, or a 408 when it takes longer than `timeout` (a client dribbling bytes
    would otherwise hold a connection and a handler for as long as it likes)."""
    try:
        async with asyncio.timeout(timeout):
            return await request.read()
    except TimeoutError:
        raise errors.RequestTimeout(
            f"the request body did not arrive within {timeout:g} seconds", headers={"Connection": "close"}
        ) from None


def _is_json(headers: Mapping[str, str]) -> bool:
    return headers.get("Content-Type", "").startswith("application/json")


def _passed_as_written(raw: RawResponse | StreamedResponse, media_type: str) -> web.Response:
    """A success of a route answering another media type than JSON (or a 304): the service's body
    and type as they are, outside the envelope; a body of any other type is the upstream's fault."""
    content_type = raw.headers.get("Content-Type", "")
    if raw.status == 304 or not content_type.startswith(media_type):
        if isinstance(raw, StreamedResponse):
            raw.close()
        if raw.status == 304:
            return web.Response(status=304)
        raise errors.BadGateway(f"upstream answered with a body that is not {media_type}")
    if isinstance(raw, StreamedResponse):
        return web.Response(
            status=raw.status, body=payload.AsyncIterablePayload(raw.pieces(), content_type=content_type)
        )
    return web.Response(status=raw.status, body=raw.body, headers={"Content-Type": content_type})


def shape(raw: RawResponse | StreamedResponse, media_type: str = JSON_MEDIA_TYPE) -> web.Response:
    """The envelope of a service's answer: a streamed success passed on as it arrives, a read one
    spliced whole, a failure as the error it says; a route of another media type passes its
    successes on as written."""
    response: web.Response
    if isinstance(raw, RawResponse) and raw.status >= 400:
        raise upstream_error(raw)
    if media_type != JSON_MEDIA_TYPE:
        response = _passed_as_written(raw, media_type)
    elif isinstance(raw, StreamedResponse):  # only successes are streamed
        if not _is_json(raw.headers):
            raw.close()
            raise errors.BadGateway("upstream answered with a body that is not JSON")
        response = ok_streamed_response(raw.pieces(), raw.status)
    elif raw.status == 304:  # If-None-Match: the version the client holds is current; no body
        response = web.Response(status=304)
    else:
        if raw.body and not _is_json(raw.headers):
            raise errors.BadGateway("upstream answered with a body that is not JSON")
        response = ok_response_from_json(raw.body or b"null", raw.status)
    for name in PASSED_RESPONSE_HEADERS:
        if name in raw.headers:
            response.headers[name] = raw.headers[name]
    return response


@dataclass(frozen=True)
class Checked:
    """What the checks of a route established about a request, for whatever answers it."""

    identity: Identity
    product: Product | None
    body: bytes


Respond = Callable[[web.Request, Checked], Awaitable[web.Response]]


def forward_to(upstream_url: str, route: Route) -> Respond:
    """Answer with one upstream call carrying the signed internal token."""

    async def forward(request: web.Request, checked: Checked) -> web.Response:
        app = request.app
        request_id = request[REQUEST_ID]
        headers = {name: request.headers[name] for name in FORWARDED_REQUEST_HEADERS if name in request.headers}
        headers[INTERNAL_TOKEN_HEADER] = app[HTTP].token(checked.identity.caller(request_id, checked.product))
        headers[REQUEST_ID_HEADER] = request_id
        send = app[HTTP].stream if route.streamed else app[HTTP].send
        raw = await send(
            request.method,
            # Always relative, also for an absolute-form request line ("GET http://host/path").
            upstream_url + request.rel_url.raw_path_qs,
            headers=headers,
            body=checked.body or None,
            timeout=route.timeout,
            retry=route.retry_safe,  # never a write: the Idempotency-Key is the client's tool for those
        )
        return shape(raw, route.media_type)

    return forward


# A request's deadline is a hair later than the upstream call's own timeout, which names the
# upstream when it is the one that did not answer in time.
DEADLINE_SLACK_SECONDS = 0.1


def refuse_unhonoured_preconditions(request: web.Request, route: Route) -> None:
    """400 for a write's precondition its route does not check, rather than a write that ignores it."""
    unhonoured = [
        name
        for name in ("If-Match", "If-None-Match", "If-Unmodified-Since")
        if name in request.headers and not (name == "If-Match" and route.if_match)
    ]
    if unhonoured:
        name = unhonoured[0]
        raise errors.BadRequest(
            f"{route.method} {route.path} does not take {name}; send it without the condition",
            details={name: "This operation cannot check this precondition."},
        )


def refuse_cross_site_write(request: web.Request, route: Route, identity: Identity) -> None:
    """403 for a write authenticated by the session cookie that another site's page made: the
    browser attaches the cookie to any site's request (SameSite=Lax stops only some), as it
    would to a dashboard form, which is held to the same rule (gateway/dashboard/csrf.py)."""
    if identity.credential == "session" and not route.retry_safe and from_another_site(request):
        raise errors.Forbidden(
            "a request authenticated by the dashboard's cookie must come from the dashboard's own pages",
            details={"Origin": "Not this site."},
        )


def admit(limiter: RateLimiter, identity: Identity, route: Route) -> Decision:
    """The first stages of every route, whoever sends it (a client through the proxy, a dashboard
    page for its user, gateway/dashboard/api.py): the rate limit, then the scope. Answers the
    limiter's decision, whose `RateLimit-*` headers the answer carries; a 429 or 403 carries them too."""
    decision = limiter.take(identity.rate_key)
    if not decision.allowed:
        raise errors.RateLimited(
            details={"retryAfterSeconds": decision.retry_after_seconds}, headers=decision.headers()
        )
    check_scope(identity, route, decision.headers())
    return decision


def check_scope(identity: Identity, route: Route, headers: Mapping[str, str] | None = None) -> None:
    """The scope stage: 403 for a credential without the route's scope (a page offering what a
    route does asks the same, gateway/dashboard/api.py)."""
    if route.scope is not None and route.scope not in identity.scopes:
        raise lacks_scope(route.scope, headers)


def retired(route: Route, headers: Mapping[str, str] | None = None) -> errors.Gone:
    """The 410 of a route past its sunset."""
    assert route.sunset is not None  # only a route with a sunset retires
    return errors.Gone(f"{route.method} {route.path} stopped responding on {route.sunset.date()}", headers=headers)


def lacks_scope(scope: str, headers: Mapping[str, str] | None = None) -> errors.Forbidden:
    """The 403 of a credential without `scope`."""
    return errors.Forbidden(
        f"this credential lacks the scope {scope}", details={"requiredScope": scope}, headers=dict(headers or {})
    )


def compile_route(route: Route, respond: Respond) -> Handler:
    """The handler of one route of the table: the route's checks, then `respond`."""
    static_headers = lifecycle_headers(route)

    async def handler(request: web.Request) -> web.StreamResponse:
        app = request.app
        if route.sunset is not None and app[CLOCK]() > route.sunset:
            raise retired(route, static_headers)
        extra_headers = dict(static_headers)
        loop = asyncio.get_running_loop()
        started = loop.time()
        # Whatever waits below (the gateway's own database work, the upstream call) ends by the
        # route's timeout with a 504: a request's whole time is bounded, not each step's separately.
        # The body's arrival is the client's time, bounded by its own timeout (408), and not counted.
        deadline = started + route.timeout + DEADLINE_SLACK_SECONDS
        try:
            try:
                async with asyncio.timeout_at(deadline) as limit:
                    identity = await app[AUTHENTICATOR].identify(request)
                    request[ACCESS_FIELDS] = identity.access_fields()
                    request[AUDIT_ACTOR] = Actor.of(identity)
                    refuse_cross_site_write(request, route, identity)
                    extra_headers.update(admit(app[LIMITER], identity, route).headers())
                    key = None
                    if request.method in IDEMPOTENT_METHODS:
                        refuse_unhonoured_preconditions(request, route)
                        key = idempotency_key(request)
                    body = b""
                    if request.body_exists:
                        limit.reschedule(None)
                        arriving = loop.time()
                        body = await read_body(request, app[SETTINGS].body_timeout_seconds)
                        limit.reschedule(deadline + loop.time() - arriving)
                    product = await check_tenancy(request, route, identity, body)
                    checked = Checked(identity, product, body)
                    if key is None:
                        response = await respond(request, checked)
                    else:
                        response = await app[IDEMPOTENCY].run(
                            request, identity, key, body, route.timeout, partial(respond, request, checked)
                        )
            except TimeoutError:
                raise errors.UpstreamTimeout(f"the request did not complete within {route.timeout:g}s") from None
        except errors.ApiError as error:
            error.headers = {**extra_headers, **error.headers}
            raise
        response.headers.update(extra_headers)
        return response

    return handler
