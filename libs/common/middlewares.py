"""The middlewares every part uses. Each part lists its own order as one explicit tuple."""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import replace

import redis.exceptions
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from libs.common import errors
from libs.common.db import database_unavailable, is_database_unavailable
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Verifier
from libs.common.logs import access_logger, request_id_var, route_var
from libs.common.metrics import REDIS_ERRORS, observe_request
from libs.common.state import ACCESS_FIELDS, CALLER, REQUEST_ID

log = logging.getLogger(__name__)

REQUEST_ID_HEADER = "X-Request-Id"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")

Render = Callable[[errors.ApiError], web.StreamResponse]


def _from_http_exception(exc: web.HTTPException) -> errors.ApiError:
    if isinstance(exc, web.HTTPNotFound):
        return errors.NotFound("no such route")
    if isinstance(exc, web.HTTPMethodNotAllowed):
        return errors.MethodNotAllowed(
            f"method {exc.method} not allowed", details={"allowed": sorted(exc.allowed_methods)}
        )
    if isinstance(exc, web.HTTPRequestEntityTooLarge):
        return errors.PayloadTooLarge(exc.text)
    return errors.error_for_status(exc.status)(exc.reason)


def _plain_response(exc: web.HTTPException) -> web.Response:
    headers = {name: value for name, value in exc.headers.items() if name.lower() != "content-length"}
    response = web.Response(status=exc.status, reason=exc.reason, headers=headers, body=exc.body)
    for name, cookie in exc.cookies.items():  # cookies set on it (a new session, a sign-out) go with it
        response.cookies[name] = cookie
    return response


def error_middleware(render: Render) -> Middleware:
    """Outermost: turn every exception into an error body; a stack trace never leaves the process.

    Catches `Exception`, not `BaseException`, so task cancellation propagates.
    """

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except errors.ApiError as exc:
            return render(exc)
        except web.HTTPException as exc:
            if exc.status < 400:
                # A redirect (or another non-error) raised by a handler becomes a plain response
                # here, so the middlewares outside count, log and label it like any other answer.
                return _plain_response(exc)
            response = render(_from_http_exception(exc))
            if isinstance(exc, web.HTTPMethodNotAllowed):
                response.headers["Allow"] = ",".join(sorted(exc.allowed_methods))
            return response
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            REDIS_ERRORS.labels("request").inc()  # logged once per outage (libs.common.redis_client)
            return render(errors.ServiceUnavailable("session store unavailable"))
        except Exception as exc:
            if is_database_unavailable(exc):  # logged once per outage (libs.common.db.Outage)
                return render(database_unavailable())
            log.exception("unhandled error on %s %s", request.method, request.path)
            return render(errors.InternalError())

    return middleware


@web.middleware
async def request_id_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Take the caller's X-Request-Id when it is well-formed, else make one; echo it back."""
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    # As random as a uuid4, without building one.
    request_id = incoming if _REQUEST_ID.match(incoming) else os.urandom(16).hex()
    request[REQUEST_ID] = request_id
    token = request_id_var.set(request_id)
    try:
        response = await handler(request)
        response.headers[REQUEST_ID_HEADER] = request_id
        return response
    finally:
        request_id_var.reset(token)


def security_headers_middleware(strict_transport: bool) -> Middleware:
    """Headers every answer carries: no content sniffing, no caching unless the handler chose a
    policy (answers carry data of one caller), and, where the service is reached over HTTPS,
    HSTS. `strict_transport`: the public address is https (TLS may end at a proxy in front)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Cache-Control", "no-store")
        if strict_transport or request.secure:
            response.headers.setdefault("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
        return response

    return middleware


def observe_middleware(service: str, logged: Callable[[int, float], bool] | None = None) -> Middleware:
    """The request metrics for every request, errors included, and one JSON access-log line for
    each, or for those `logged(status, seconds)` picks (a public face's failures and slow answers)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        started = time.perf_counter()
        status = 500
        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else "unmatched"
        route_token = route_var.set(route)
        try:
            response = await handler(request)
            status = response.status
            return response
        finally:
            route_var.reset(route_token)
            elapsed = time.perf_counter() - started
            observe_request(service, request.method, route, status, elapsed)
            if logged is None or logged(status, elapsed):
                access_logger.info(
                    "request",
                    extra={
                        "method": request.method,
                        "path": request.path,
                        "status": status,
                        "duration_ms": round(elapsed * 1000, 3),
                        "remote": request.remote,
                        **_caller_fields(request),
                    },
                )

    return middleware


def _caller_fields(request: web.Request) -> dict[str, str]:
    """Who called, as far as this part knows: what the gateway recorded, or the internal token's caller."""
    if ACCESS_FIELDS in request:
        return request[ACCESS_FIELDS]
    caller = request.get(CALLER)
    if caller is None:
        return {}
    fields = {"credential": f"internal:{caller.principal_kind}"}
    if caller.organization is not None:
        fields["organization_id"] = caller.organization.id
    return fields


def internal_auth_middleware(secret: str, prefixes: tuple[str, ...], *also_accepted: str) -> Middleware:
    """Requests under `prefixes` need an internal token signed with `secret` (or, during a rotation,
    one of `also_accepted`); the verified caller goes on the request."""
    verifier = Verifier(secret, *also_accepted)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith(prefixes):
            token = request.headers.get(INTERNAL_TOKEN_HEADER)
            if not token:
                raise errors.Unauthorized("internal token required")
            request[CALLER] = replace(verifier.caller(token), request_id=request.get(REQUEST_ID))
        return await handler(request)

    return middleware
