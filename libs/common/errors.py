"""The error family shared by every part, one class per code of the design brief.

Data-layer code raises these; the outermost error middleware renders them. Nothing here
imports aiohttp, so queries and pure logic can raise them too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ApiError(Exception):
    """An error with an HTTP status, a stable code and a human message."""

    status: int = 500
    code: str = "INTERNAL_ERROR"
    default_message: str = "internal error"
    default_headers: Mapping[str, str] = {}

    def __init__(
        self, message: str | None = None, details: Any = None, headers: Mapping[str, str] | None = None
    ) -> None:
        self.message = message or self.default_message
        self.details = details
        self.headers: dict[str, str] = {**self.default_headers, **(headers or {})}
        super().__init__(self.message)

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        return body


class UpstreamError(ApiError):
    """An error a service answered, passed on with its own status and code."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(message, details)
        self.status = status
        self.code = code


class BadRequest(ApiError):
    status, code, default_message = 400, "BAD_REQUEST", "bad request"


class Unauthorized(ApiError):
    status, code, default_message = 401, "UNAUTHORIZED", "authentication required"


class Forbidden(ApiError):
    status, code, default_message = 403, "FORBIDDEN", "forbidden"


class NotFound(ApiError):
    status, code, default_message = 404, "NOT_FOUND", "not found"


class MethodNotAllowed(ApiError):
    status, code, default_message = 405, "METHOD_NOT_ALLOWED", "method not allowed"


class RequestTimeout(ApiError):
    status, code, default_message = 408, "REQUEST_TIMEOUT", "the request body did not arrive in time"


class Conflict(ApiError):
    status, code, default_message = 409, "CONFLICT", "conflict"


class IdempotencyInProgress(Conflict):
    """A request with an `Idempotency-Key` whose first request is still running."""

    code, default_message = "IDEMPOTENCY_IN_PROGRESS", "a request with this Idempotency-Key is still running"
    default_headers = {"Retry-After": "1"}


class Gone(ApiError):
    status, code, default_message = 410, "GONE", "gone"


class PreconditionFailed(ApiError):
    """A stale `If-Match`: the resource changed since the caller read it (the current ETag in `details`)."""

    status, code, default_message = 412, "PRECONDITION_FAILED", "the resource has changed since it was read"


class PayloadTooLarge(ApiError):
    status, code, default_message = 413, "PAYLOAD_TOO_LARGE", "request body too large"


class ValidationFailed(ApiError):
    status, code, default_message = 422, "VALIDATION_FAILED", "validation failed"


class IdempotencyKeyReused(ValidationFailed):
    """An `Idempotency-Key` sent again with a different request (method, path or body)."""

    code = "IDEMPOTENCY_KEY_REUSED"
    default_message = "this Idempotency-Key was used with a different request"


class RateLimited(ApiError):
    status, code, default_message = 429, "RATE_LIMITED", "rate limit exceeded"


class InternalError(ApiError):
    status, code, default_message = 500, "INTERNAL_ERROR", "internal error"


class BadGateway(ApiError):
    status, code, default_message = 502, "BAD_GATEWAY", "upstream unreachable"


class UpstreamUnreachable(BadGateway):
    """No whole answer: the connection was refused, or broke before the answer was complete."""


# Seconds a client should wait before retrying a 503: stores come back, or fail over, in seconds.
RETRY_AFTER_SECONDS = 1


class ServiceUnavailable(ApiError):
    status, code, default_message = 503, "SERVICE_UNAVAILABLE", "service unavailable"
    default_headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}


class UpstreamTimeout(ApiError):
    status, code, default_message = 504, "UPSTREAM_TIMEOUT", "upstream timed out"


ERRORS_BY_STATUS: dict[int, type[ApiError]] = {
    cls.status: cls
    for cls in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        RequestTimeout,
        Conflict,
        Gone,
        PreconditionFailed,
        PayloadTooLarge,
        ValidationFailed,
        RateLimited,
        InternalError,
        BadGateway,
        ServiceUnavailable,
        UpstreamTimeout,
    )
}


def error_for_status(status: int) -> type[ApiError]:
    """The error class for an HTTP status; unknown 4xx map to 400, unknown 5xx to 500."""
    if status in ERRORS_BY_STATUS:
        return ERRORS_BY_STATUS[status]
    return BadRequest if status < 500 else InternalError
