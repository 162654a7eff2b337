"""The OpenAPI 3.1 document, generated from the route table and the services' schemas."""

from __future__ import annotations

import re
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema, fields

from gateway.edge.idempotency import HEADER as IDEMPOTENCY_HEADER
from gateway.edge.idempotency import METHODS as IDEMPOTENT_METHODS
from gateway.edge.openapi_errors import ERROR_ENVELOPE, SERVER_ERRORS, error_reference, error_responses
from gateway.edge.openapi_headers import WEBHOOK_PARAMETERS, conditional_headers, declare_headers
from gateway.identity.auth.credentials import API_KEY_HEADER
from gateway.identity.auth.sessions import SESSION_COOKIE
from libs.common.encoding import dumps
from libs.common.openapi_examples import OPENAPI_VERSION, Examples
from libs.common.schemas import MAX_JSON_DEPTH
from libs.contract.event import Event
from libs.contract.examples import DOCUMENT_EXAMPLES
from libs.contract.glossary import FIELDS, PARAMETERS
from libs.contract.route import Route
from libs.contract.schema_glossary import SCHEMA_FIELDS
from libs.contract.validators import JSON_SCHEMA_COMPONENTS
from services.events.catalog import EVENTS

VERSION = "0.1.0"
TITLE = "Organization-scoped content, apps and visibility API"
DESCRIPTION = (
    "Every response is the envelope `{ok: true, data}` or `{ok: false, code, message, details?}`. "
    f"A JSON body may nest at most {MAX_JSON_DEPTH} levels deep (the body itself is level 0), and no "
    "string or object key in a body or query may hold the NUL character (U+0000); either is a 422."
)
LICENSE_NAME = "Proprietary: all rights reserved"
# The reference page states the license (gateway/dashboard/templates/docs.html).
LICENSE_PATH = "/docs#license"
# Two of the contract's paths match the same URLs as templates (`/content/{id}/domains` and
# `/content/search/{orgId}`: both /content/<a>/<b>). They never meet: `{id}` is a UUID, and
# the literal `search` wins, as OpenAPI 3.1 ("Path Templating Matching") orders them.
AMBIGUOUS_PATHS = (
    " The path `/api/v1/content/{id}/domains` and the path `/api/v1/content/search/{orgId}` match the same URLs"
    " as templates; this is the contract's. A content document's `id` is a UUID, never `search`, and a literal"
    " segment is matched before a template, so `/content/search/...` is always the search."
)
AMBIGUOUS_OPERATIONS = ("content_domains_update", "content_search")
# The API is served under /api/v1 of the host that serves this document.
SERVERS = [{"url": "/", "description": "The host serving this document."}]
# Every tag a route may carry, in the order the document lists them.
TAGS = {
    "Identity": "The credential of a request: its organization, scopes, and user or API key.",
    "Products": "The organization's products, the `productId` most calls need, and each product's brand.",
    "Competitors": "A product's competitors, looked for in AI answers; every change bumps the competitor-set version.",
    "Prompts": "Prompts a product tracks in AI engines: their text (versioned), topic, engines and cadence.",
    "Engines": "The AI engines answers come from, and whether this deployment can call each.",
    "Answers": "Answers of AI engines, with the brands they mention and the pages they cite.",
    "Analytics": "The numbers of analysed answers: visibility, share of voice, position, sentiment and citations,"
    " each ratio with what it was computed from, over periods of days in a named time zone (UTC by default).",
    "Prompt runs": "Prompts asked of the engines now, or on their cadence: status, progress, tokens and cost.",
    "Site pages": "A product's site pages in bulk (writes deprecated in favor of Apps).",
    "Content": "Content documents: read, update, attach domains, and semantic search.",
    "Apps": "Apps: their config, products, domains and URL routes to content documents.",
    "Legacy routing": "Domain routing configs of the former routing feature (deprecated, with a sunset).",
    "Personas": "A product's audience personas.",
    "Topics": "A product's topics.",
    "Prompt suggestions": "Prompt suggestions generated from a product's personas and topics, and their review.",
    "Agent simulation": "Tasks an AI agent is given on an App, the environments that run them, the runs with"
    " their steps and verdicts, and their analytics.",
    "Webhooks": "Webhook endpoints: signed deliveries (Standard Webhooks) of the organization's events, with retries.",
    "Audit": "The organization's audit trail: every change, refused credential and sign-in, who and from where.",
    "AI traffic": "AI agents' requests to the organization's Apps: ingested or captured, verified, summarised.",
}

_PATH_PARAM = re.compile(r"([\w-]+)/{(\w+)}")


def describe_field(self: Any, field: fields.Field[Any], ret: dict[str, Any], **_: Any) -> dict[str, Any]:
    """An apispec attribute function: the field's description from the glossary unless its schema
    gives one, and the values of an enumeration listed in it."""
    if not isinstance(field.parent, Schema):  # a list's item: its list is described
        return {}
    name = field.data_key or field.name or ""
    description = (
        ret.get("description") or SCHEMA_FIELDS.get(f"{type(field.parent).__name__}.{name}") or FIELDS.get(name)
    )
    if description is None:
        return {}
    values = ret.get("enum") or ret.get("items", {}).get("enum")
    if values and not all(f"`{value}`" in description for value in values if value is not None):
        listed = ", ".join(f"`{value}`" for value in values if value is not None)
        description = f"{description} One of: {listed}."
    return {"description": description}


def _path_parameter(segment: str, name: str) -> dict[str, Any]:
    """A path parameter, described by the glossary (tests/gateway/test_openapi_reference.py finds one it lacks)."""
    parameter = {"in": "path", "name": name, "required": True, "schema": {"type": "string", "minLength": 1}}
    description = PARAMETERS.get(f"{segment}/{{{name}}}") or PARAMETERS.get(name)
    return parameter if description is None else {**parameter, "description": description}


def _error_statuses(route: Route) -> list[int | str]:
    """The errors the operation can answer, from what its declaration makes the gateway and the
    service check: every route authenticates (401) and is rate limited (429); a scope is a 403; an
    id in the path or a product to check is a 404; a body or query is validated (422); a write takes
    an `Idempotency-Key` (400, 409, 422), a body that may be late or large (408, 413), and is
    refused when a session cookie sends it from another site (403); a sunset is a 410. `If-Match`
    adds the 412 (see gateway/edge/openapi_headers.py)."""
    if route.errors is not None:
        # The operation's own list, and what the gateway itself answers on it.
        return [*sorted({*route.errors, 429, *((408,) if route.body is not None else ())})]
    write = not route.retry_safe or route.method in IDEMPOTENT_METHODS
    statuses = {401, 429}
    if route.scope is not None or write:
        statuses.add(403)
    tenancy = (route.org_param, route.product_param, route.product_query, route.product_body)
    if _PATH_PARAM.search(route.path) or any(tenancy):
        statuses.add(404)
    if route.body is not None or route.query is not None or write:
        statuses.add(422)
    if route.body is not None or write:
        statuses.update((400, 408, 413))
    if write:
        statuses.add(409)
    if route.sunset is not None:
        statuses.add(410)
    return [*sorted(statuses), SERVER_ERRORS]


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
    # A parameter is declared here, or named: one of components/parameters (gateway/edge/openapi_headers.py).
    parameters: list[Any] = [_path_parameter(segment, name) for segment, name in _PATH_PARAM.findall(route.path)]
    if route.query is not None:
        parameters.append({"in": "query", "schema": route.query})
    success_content = (
        {"application/json": {"schema": success}}
        if route.enveloped
        else {route.media_type: {"schema": {"type": "string"}}}  # the document itself, not enveloped
    )
    responses: dict[str, Any] = {str(route.status): {"description": "Success.", "content": success_content}}
    conditional_headers(route, parameters, responses)
    for status in _error_statuses(route):
        responses[str(status)] = error_reference(status)
    # The answers in the order of their statuses (a conditional 304 or 412 among them), the range last.
    responses = dict(sorted(responses.items(), key=lambda item: item[0].replace("X", "9")))
    description = f"Requires the scope `{route.scope}`." if route.scope else "Any valid credential; no scope needed."
    if route.name in AMBIGUOUS_OPERATIONS:
        description += AMBIGUOUS_PATHS
    operation: dict[str, Any] = {
        "operationId": route.name,
        "summary": route.summary,
        "description": description,
        "tags": [route.tag],
        "security": [{"ApiKey": []}, {"Bearer": []}, {"Session": []}],
        "x-required-scope": route.scope,
        "parameters": parameters,
        "responses": responses,
    }
    if route.body is not None:
        body: Any = route.body
        if route.body_many:
            body = {"type": "array", "items": route.body, "minItems": 1, "maxItems": route.body_many}
        content = {"application/json": {"schema": body}}
        operation["requestBody"] = {"required": not route.body_optional, "content": content}
    if route.deprecated is not None:
        operation["deprecated"] = True
    return operation


WEBHOOK_DESCRIPTION = (
    "Sent to each webhook endpoint subscribed to this type (or to `*`), signed as Standard Webhooks"
    " prescribe: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`"
    " under the endpoint's secret. A 2xx answer acknowledges the delivery; anything else, or no answer in time,"
    " is retried."
)


def _webhook(event: Event) -> dict[str, Any]:
    """The operation of one event type: the signed POST the events part sends an endpoint."""
    payload = {
        "type": "object",
        "required": ["id", "type", "occurredAt", "organizationId", "data"],
        "properties": {
            "id": {"type": "string", "description": "The event's id (also `webhook-id`)."},
            "type": {"type": "string", "const": event.type},
            "occurredAt": {"type": "string", "format": "date-time", "description": "When the change committed."},
            "organizationId": {"type": "string", "description": "The organization the event belongs to."},
            "data": event.data,
        },
        "additionalProperties": False,
    }
    return {
        "operationId": f"webhook_{event.type.replace('.', '_')}",
        "summary": event.summary,
        "description": WEBHOOK_DESCRIPTION,
        "tags": [event.tag],
        "parameters": [*WEBHOOK_PARAMETERS],
        "requestBody": {"required": True, "content": {"application/json": {"schema": payload}}},
        "responses": {"2XX": {"description": "Acknowledged: the delivery succeeded."}},
    }


def add_examples(document: dict[str, Any]) -> None:
    """An example of each operation's parameters, body and answers, made from their schemas."""
    examples = Examples(document["components"]["schemas"])
    operation_lists = [*document["paths"].values(), *document.get("webhooks", {}).values()]
    operations = [operation for item in operation_lists for operation in item.values()]
    # A parameter named by its operations carries its example under components/parameters.
    declared = document["components"].get("parameters", {}).values()
    inline = [parameter for operation in operations for parameter in operation["parameters"] if "$ref" not in parameter]
    for parameter in [*declared, *inline]:
        # No example of an Idempotency-Key: a client makes a fresh one per write, and a tool
        # sending the examples would reuse it on other bodies (a 422 IDEMPOTENCY_KEY_REUSED).
        if parameter["name"] != IDEMPOTENCY_HEADER:
            parameter["example"] = examples.of(parameter["schema"], parameter["name"])
    for operation in operations:
        contents = [operation.get("requestBody", {}).get("content", {})]
        contents += [answer.get("content", {}) for answer in operation["responses"].values()]
        for content in contents:
            for media_type, media in content.items():
                media["example"] = DOCUMENT_EXAMPLES.get(media_type) or examples.of(media["schema"])


def build_document(routes: tuple[Route, ...], public_url: str, events: tuple[Event, ...] = EVENTS) -> dict[str, Any]:
    """The OpenAPI document of every route of the table and every webhook event of the catalog,
    for the gateway at `public_url`."""
    plugin = MarshmallowPlugin()
    spec = APISpec(
        title=TITLE,
        version=VERSION,
        openapi_version=OPENAPI_VERSION,
        plugins=[plugin],
        info={"description": DESCRIPTION, "license": {"name": LICENSE_NAME, "url": public_url + LICENSE_PATH}},
        servers=SERVERS,
        tags=[{"name": name, "description": description} for name, description in TAGS.items()],
    )
    assert plugin.converter is not None  # set when the spec took the plugin
    plugin.converter.add_attribute_function(describe_field)  # type: ignore[no-untyped-call]  # apispec is untyped
    spec.components.security_scheme("ApiKey", {"type": "apiKey", "in": "header", "name": API_KEY_HEADER})
    spec.components.security_scheme("Bearer", {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"})
    spec.components.security_scheme("Session", {"type": "apiKey", "in": "cookie", "name": SESSION_COOKIE})
    spec.components.schema("ErrorEnvelope", ERROR_ENVELOPE)
    declare_headers(spec)
    for name, schema in JSON_SCHEMA_COMPONENTS.items():
        spec.components.schema(name, schema)
    operations: dict[str, dict[str, Any]] = {}
    for route in routes:
        if route.tag not in TAGS:
            raise ValueError(f"route {route.name}: the tag {route.tag!r} has no description in gateway/edge/openapi.py")
        operations.setdefault(route.path, {})[route.method.lower()] = _operation(route)
    for path, path_operations in operations.items():
        spec.path(path=path, operations=path_operations)
    # Each error answer once: those the operations refer to.
    answers = [answer for item in operations.values() for op in item.values() for answer in op["responses"].values()]
    for name, response in error_responses(routes, {answer["$ref"] for answer in answers if "$ref" in answer}).items():
        spec.components.response(name, response)
    webhooks = {}
    for event in events:
        if event.tag not in TAGS:
            raise ValueError(f"event {event.type}: the tag {event.tag!r} has no description in gateway/edge/openapi.py")
        webhook = _webhook(event)
        # apispec resolves schemas of paths only: the event's `data` becomes a reference to its component.
        data = webhook["requestBody"]["content"]["application/json"]["schema"]["properties"]
        data["data"] = plugin.converter.resolve_nested_schema(event.data)  # type: ignore[no-untyped-call]
        webhooks[event.type] = {"post": webhook}
        spec.components.resolve_refs_in_path(webhooks[event.type])  # its named parameters: references
    document = spec.to_dict()
    document["webhooks"] = webhooks
    add_examples(document)
    return document


def render_document(routes: tuple[Route, ...], public_url: str) -> bytes:
    return dumps(build_document(routes, public_url))
