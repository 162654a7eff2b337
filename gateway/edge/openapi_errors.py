"""The error answers of the OpenAPI document: each status's answer declared once, under
`components/responses`, with the error this API answers with that status as its example (its
code from libs/common/errors.py, its message as the gateway or a service words it)."""

from __future__ import annotations

from typing import Any

from gateway.edge.proxy import lacks_scope, retired
from libs.common import errors
from libs.common.etags import changed_since
from libs.common.schemas import MAX_JSON_DEPTH
from libs.contract.route import Route

# Any operation may fail on the server's side: one range in the document, not four statuses each.
SERVER_ERRORS = "5XX"
ERROR_DESCRIPTIONS: dict[int | str, str] = {
    400: "Bad request: the body is not JSON or not sent as JSON, the `Idempotency-Key` is empty, too long or"
    " sent twice, or the request sent a precondition the operation cannot check.",
    401: "Authentication required, or the credential is invalid.",
    403: "The credential lacks the required scope, or a write authenticated by the dashboard's cookie came from"
    " another site.",
    404: "No such resource in the caller's organization.",
    408: "The request body did not arrive in time.",
    409: "Conflict with an existing resource, or `IDEMPOTENCY_IN_PROGRESS` (the key's first request still runs).",
    410: "The operation has been retired.",
    412: "`PRECONDITION_FAILED`: the resource changed; `details.etag` is its current ETag.",
    413: "The body is over the size limit.",
    422: (
        "Validation failed; `details` maps field paths to messages (also for a string holding NUL, "
        f"or JSON nested deeper than {MAX_JSON_DEPTH} levels, or an `Idempotency-Key` reused on another request)."
    ),
    429: "Rate limited; see `Retry-After`.",
    500: "Internal error.",
    502: "The upstream service is unreachable.",
    503: "The upstream service is not ready.",
    504: "The upstream service did not answer in time.",
    SERVER_ERRORS: "The server failed: 500 an internal error, 502 an upstream service unreachable, 503 one"
    " not ready, 504 one that did not answer in time. Retry later; a write with an `Idempotency-Key` is safe"
    " to send again.",
}
# The scope the example of a 403 names.
EXAMPLE_SCOPE = "simulations:read"
EXAMPLE_ETAG = '"5d41402abc4b2a76b9719d911017c592"'
# The error each status's example shows (a 410's names the retired route, see `error_responses`).
EXAMPLES: dict[int | str, errors.ApiError] = {
    400: errors.BadRequest("the body is not valid JSON"),
    401: errors.Unauthorized("invalid api key"),
    403: lacks_scope(EXAMPLE_SCOPE),
    404: errors.NotFound("product not found"),
    408: errors.RequestTimeout(),
    409: errors.Conflict("the domain docs.example.com is already in use"),
    412: changed_since(EXAMPLE_ETAG),
    413: errors.PayloadTooLarge(),
    422: errors.ValidationFailed(details={"pages.0.slug": "Must be lowercase letters, digits and single hyphens."}),
    429: errors.RateLimited(details={"retryAfterSeconds": 1}),
    500: errors.InternalError(),
    502: errors.BadGateway(),
    503: errors.ServiceUnavailable(),
    504: errors.UpstreamTimeout(),
    SERVER_ERRORS: errors.InternalError(),
}

ERROR_ENVELOPE = {
    "type": "object",
    "required": ["ok", "code", "message"],
    "properties": {
        "ok": {"type": "boolean", "const": False, "description": "Always false in an error."},
        "code": {
            "type": "string",
            "description": "The error's kind, for programs (`VALIDATION_FAILED`, `NOT_FOUND`, …).",
        },
        "message": {"type": "string", "description": "What went wrong, for people."},
        "details": {"description": "More about the error when there is more: for a 422, each field path's message."},
    },
    "additionalProperties": False,
}


RESPONSES = "#/components/responses/"


def response_name(status: int | str) -> str:
    """The name of a status's answer under `components/responses`: its error's class (`NotFound`)."""
    return "ServerError" if status == SERVER_ERRORS else errors.ERRORS_BY_STATUS[int(status)].__name__


def error_reference(status: int | str) -> dict[str, str]:
    return {"$ref": f"{RESPONSES}{response_name(status)}"}


def error_responses(routes: tuple[Route, ...], referred: set[str]) -> dict[str, dict[str, Any]]:
    """The answer of each status `referred` to, by its name under `components/responses`, in status
    order. The example of a 410 names a retired route of `routes`."""
    examples = dict(EXAMPLES)
    sunset = next((route for route in routes if route.sunset is not None), None)
    if sunset is not None:
        examples[410] = retired(sunset)
    statuses = [status for status in examples if error_reference(status)["$ref"] in referred]
    return {
        response_name(status): {
            "description": ERROR_DESCRIPTIONS[status],
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/ErrorEnvelope"},
                    "example": {"ok": False, **examples[status].to_dict()},
                }
            },
        }
        for status in sorted(statuses, key=lambda status: str(status).replace("X", "9"))
    }
