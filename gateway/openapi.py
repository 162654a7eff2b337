"""The OpenAPI 3.1 document, generated from the route table and the services' schemas."""

from __future__ import annotations

import re
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

from gateway.auth.credentials import API_KEY_HEADER
from gateway.auth.sessions import SESSION_COOKIE
from libs.common.encoding import dumps
from libs.common.schemas import MAX_JSON_DEPTH
from libs.common.validators import JSON_SCHEMA_COMPONENTS
from libs.contract.route import Route

VERSION = "0.1.0"
TITLE = "Organization-scoped content, apps and visibility API"
DESCRIPTION = (
    "Every response is the envelope `{ok: true, data}` or `{ok: false, code, message, details?}`. "
    f"A JSON body may nest at most {MAX_JSON_DEPTH} levels deep (the body itself is level 0), and no "
    "string or object key in a body or query may hold the NUL character (U+0000); either is a 422."
)
LICENSE = {"name": "Proprietary: all rights reserved"}
# The API is served under /api/v1 of the host that serves this document.
SERVERS = [{"url": "/", "description": "The host serving this document."}]
# Every tag a route may carry, in the order the document lists them.
TAGS = {
    "Identity": "The credential of a request: its organization, scopes, and user or API key.",
    "Products": "The organization's products: the `productId` most calls need.",
    "Site pages": "A product's site pages in bulk (writes deprecated in favor of Apps).",
    "Content": "Content documents: read, update, attach domains, and semantic search.",
    "Apps": "Apps: their config, products, domains and URL routes to content documents.",
    "Legacy routing": "Domain routing configs of the former routing feature (deprecated, with a sunset).",
    "Personas": "A product's audience personas.",
    "Topics": "A product's topics.",
    "Prompt suggestions": "Prompt suggestions generated from a product's personas and topics, and their review.",
    "Agent simulation": "Agent-simulation runs of the organization.",
    "Webhooks": "Webhook endpoints: signed deliveries (Standard Webhooks) of the organization's events, with retries.",
    "Audit": "The organization's audit trail: every change, refused credential and sign-in, who and from where.",
}

ERROR_DESCRIPTIONS = {
    400: "Bad request: the body is not JSON, or the content type is wrong.",
    401: "Authentication required, or the credential is invalid.",
    403: "The credential lacks the required scope.",
    404: "No such resource in the caller's organization.",
    408: "The request body did not arrive in time.",
    409: "Conflict with an existing resource.",
    410: "The operation has been retired.",
    413: "The body is over the size limit.",
    422: (
        "Validation failed; `details` maps field paths to messages (also for a string holding NUL, "
        f"or JSON nested deeper than {MAX_JSON_DEPTH} levels)."
    ),
    429: "Rate limited; see `Retry-After`.",
    500: "Internal error.",
    502: "The upstream service is unreachable.",
    503: "The upstream service is not ready.",
    504: "The upstream service did not answer in time.",
}
ALWAYS = (400, 401, 403, 404, 422, 429, 500, 502, 503, 504)

ERROR_ENVELOPE = {
    "type": "object",
    "required": ["ok", "code", "message"],
    "properties": {
        "ok": {"type": "boolean", "const": False},
        "code": {"type": "string"},
        "message": {"type": "string"},
        "details": {},
    },
    "additionalProperties": False,
}

_PATH_PARAM = re.compile(r"{(\w+)}")


def _error_statuses(route: Route) -> list[int]:
    if route.errors is not None:
        # The operation's own list, and what the gateway itself answers on it.
        return sorted({*route.errors, 429, *((408,) if route.body is not None else ())})
    statuses = set(ALWAYS)
    if route.body is not None or route.method in ("POST", "PUT", "PATCH", "DELETE"):
        statuses.update((408, 413))
    if route.method != "GET":
        statuses.add(409)
    if route.sunset is not None:
        statuses.add(410)
    return sorted(statuses)


def _operation(route: Route) -> dict[str, Any]:
    # A route declared without a response schema answers any JSON value.
    data_schema: Any = {} if route.response is None else route.response
    if route.response_many:
        data_schema = {"type": "array", "items": route.response}
    success = {
        "type": "object",
        "required": ["ok", "data"],
        "properties": {"ok": {"type": "boolean", "const": True}, "data": data_schema},
        "additionalProperties": False,
    }
    parameters: list[dict[str, Any]] = [
        {"in": "path", "name": name, "required": True, "schema": {"type": "string", "minLength": 1}}
        for name in _PATH_PARAM.findall(route.path)
    ]
    if route.query is not None:
        parameters.append({"in": "query", "schema": route.query})
    responses: dict[str, Any] = {
        str(route.status): {"description": "Success.", "content": {"application/json": {"schema": success}}}
    }
    for status in _error_statuses(route):
        responses[str(status)] = {
            "description": ERROR_DESCRIPTIONS[status],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}},
        }
    operation: dict[str, Any] = {
        "operationId": route.name,
        "summary": route.summary,
        "description": f"Requires the scope `{route.scope}`."
        if route.scope
        else "Any valid credential; no scope needed.",
        "tags": [route.tag],
        "security": [{"ApiKey": []}, {"Bearer": []}, {"Session": []}],
        "x-required-scope": route.scope,
        "parameters": parameters,
        "responses": responses,
    }
    if route.body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": route.body}}}
    if route.deprecated is not None:
        operation["deprecated"] = True
    return operation


def build_document(routes: tuple[Route, ...]) -> dict[str, Any]:
    """The OpenAPI document of every route of the table."""
    spec = APISpec(
        title=TITLE,
        version=VERSION,
        openapi_version="3.1.0",
        plugins=[MarshmallowPlugin()],
        info={"description": DESCRIPTION, "license": LICENSE},
        servers=SERVERS,
        tags=[{"name": name, "description": description} for name, description in TAGS.items()],
    )
    spec.components.security_scheme("ApiKey", {"type": "apiKey", "in": "header", "name": API_KEY_HEADER})
    spec.components.security_scheme("Bearer", {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"})
    spec.components.security_scheme("Session", {"type": "apiKey", "in": "cookie", "name": SESSION_COOKIE})
    spec.components.schema("ErrorEnvelope", ERROR_ENVELOPE)
    for name, schema in JSON_SCHEMA_COMPONENTS.items():
        spec.components.schema(name, schema)
    operations: dict[str, dict[str, Any]] = {}
    for route in routes:
        if route.tag not in TAGS:
            raise ValueError(f"route {route.name}: the tag {route.tag!r} has no description in gateway/openapi.py")
        operations.setdefault(route.path, {})[route.method.lower()] = _operation(route)
    for path, path_operations in operations.items():
        spec.path(path=path, operations=path_operations)
    return spec.to_dict()


def render_document(routes: tuple[Route, ...]) -> bytes:
    return dumps(build_document(routes))
