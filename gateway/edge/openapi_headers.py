"""The headers of the OpenAPI document, each declared once: the `Idempotency-Key` of every write and
the `Idempotent-Replayed` of its answer, the `If-Match`, `If-None-Match` and `ETag` of a versioned
resource, and the `webhook-*` headers of a delivery. A parameter is one of `components/parameters`,
an answer's header one of `components/headers`; the operations name them (apispec writes the
`$ref`), and only those named are in the document."""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from gateway.edge.idempotency import HEADER as IDEMPOTENCY_HEADER
from gateway.edge.idempotency import MAX_KEY_LENGTH, REPLAYED_HEADER
from gateway.edge.idempotency import METHODS as IDEMPOTENT_METHODS
from gateway.edge.openapi_errors import error_reference
from libs.common.etags import IF_MATCH, IF_NONE_MATCH
from libs.contract.route import Route

IDEMPOTENCY_DESCRIPTION = (
    "Makes a retry safe: the first request with a key runs and its answer is kept for 24 hours (per "
    "organization and credential); the same request again answers it with `Idempotent-Replayed: true`. "
    "The key with another method, path or body is a 422 `IDEMPOTENCY_KEY_REUSED`; while the first request "
    "runs, a 409 `IDEMPOTENCY_IN_PROGRESS` (retry). 5xx answers are not kept."
)
ETAG_DESCRIPTION = "The strong entity tag of the resource's current version, for `If-Match` and `If-None-Match`."
ETAG = "ETag"
WEBHOOK_HEADERS = {
    "webhook-id": "The event's id: the same on every retry, for deduplication.",
    "webhook-timestamp": "When this attempt was signed, in seconds since the Unix epoch.",
    "webhook-signature": "`v1,<signature>`; two, space-separated, while a rotated secret overlaps.",
}


def component_name(header: str) -> str:
    """A header's name under `components`: `Idempotency-Key` is `IdempotencyKey`, `webhook-id` `WebhookId`."""
    return "".join(word[:1].upper() + word[1:] for word in header.split("-"))


def _parameter(name: str, description: str, required: bool = False, **schema: Any) -> dict[str, Any]:
    schema = {"type": "string", **schema}
    return {"in": "header", "name": name, "required": required, "description": description, "schema": schema}


PARAMETERS = {
    component_name(parameter["name"]): parameter
    for parameter in (
        _parameter(IDEMPOTENCY_HEADER, IDEMPOTENCY_DESCRIPTION, minLength=1, maxLength=MAX_KEY_LENGTH),
        _parameter(IF_NONE_MATCH, "Answer 304 without a body when the resource still has this ETag."),
        _parameter(IF_MATCH, "Write only if the resource still has this ETag (or `*`)."),
        *(_parameter(name, description, required=True) for name, description in WEBHOOK_HEADERS.items()),
    )
}
HEADERS = {
    component_name(REPLAYED_HEADER): {
        "description": "`true` when this is the stored answer of an earlier request with the same key.",
        "schema": {"type": "string", "const": "true"},
    },
    ETAG: {"description": ETAG_DESCRIPTION, "schema": {"type": "string"}},
}
# What a webhook operation names as its parameters.
WEBHOOK_PARAMETERS = [component_name(name) for name in WEBHOOK_HEADERS]


def declare_headers(spec: APISpec) -> None:
    """Every header parameter and answer header as a component of `spec`, listed once an operation names it."""
    for name, parameter in PARAMETERS.items():
        spec.components.parameter(name, parameter["in"], parameter, lazy=True)
    for name, header in HEADERS.items():
        spec.components.header(name, header, lazy=True)


def conditional_headers(route: Route, parameters: list[Any], responses: dict[str, Any]) -> None:
    """The `Idempotency-Key` of every write, and the ETag, `If-Match` and `If-None-Match` of a
    versioned resource: parameters, the success answer's headers, and the 304 and 412 they add."""
    headers: dict[str, str] = {}
    if route.method in IDEMPOTENT_METHODS:
        parameters.append(component_name(IDEMPOTENCY_HEADER))
        headers[REPLAYED_HEADER] = component_name(REPLAYED_HEADER)
    if route.versioned:
        headers[ETAG] = component_name(ETAG)
        if route.method == "GET":
            parameters.append(component_name(IF_NONE_MATCH))
            responses["304"] = {
                "description": "Not modified: the ETag sent is current.",
                "headers": {ETAG: headers[ETAG]},
            }
    if route.if_match:
        parameters.append(component_name(IF_MATCH))
        responses["412"] = error_reference(412)
    if headers:
        responses[str(route.status)]["headers"] = headers
