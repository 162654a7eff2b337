"""Validation at the edge: one helper for JSON bodies, one for query strings, one for ids in the path.

A body that is not JSON is a 400 `BAD_REQUEST`; a body or query that does not fit the schema
is a 422 `VALIDATION_FAILED` whose `details` map each field path ("pages.0.slug") to a message.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from aiohttp import web
from marshmallow import Schema, ValidationError, fields, missing

from libs.common.encoding import loads
from libs.common.errors import BadRequest, NotFound, ValidationFailed
from libs.contract.api_schema import ApiSchema
from libs.contract.internal import Endpoint
from libs.contract.validators import is_uuid

# How deep a JSON body may nest (the body itself is level 0, so `{"config": {}}` is 1 deep).
# Far more than any document, config or editor tree needs, and far below what the encoders
# take (orjson writes at most 254 levels) or recursive code survives.
MAX_JSON_DEPTH = 64


class Ref(ApiSchema):
    """A named record as an answer names it (a product, an organization): the same three fields
    in every part's answers."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    slug = fields.String(required=True)


class Ratio(ApiSchema):
    """Every ratio the API answers (libs/common/ratios.py): what it was computed from, with it."""

    value = fields.Float(
        required=True, allow_none=True, metadata={"description": "count / total; null when total is 0."}
    )
    count = fields.Integer(required=True, metadata={"description": "What is counted."})
    total = fields.Integer(required=True, metadata={"description": "What it is counted among."})


class Timestamps(ApiSchema):
    """When a soft-deleted record was created, last changed and deleted (null while it is not),
    as every part's answers carry them."""

    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    deleted_at = fields.DateTime(required=True, allow_none=True)


# Made by the content part (its targets, JSON PostgreSQL builds from this schema's shape:
# services/content/shapes.py) and shown by the apps part as its routes' targets: declared here,
# below both.
class AppRouteTarget(ApiSchema):
    """A content document in its reduced form, as the content service gives it."""

    id = fields.String(required=True)
    title = fields.String(required=True, allow_none=True)
    file_path = fields.String(required=True, allow_none=True)
    source_url = fields.String(required=True, allow_none=True)
    status = fields.String(required=True)
    type = fields.String(required=True, allow_none=True)
    redirect_to_url = fields.String(required=True, allow_none=True)
    product_id = fields.String(required=True)


def changes_to(
    create: type[Schema], name: str, doc: str = "Every field optional: only the supplied ones change."
) -> type[ApiSchema]:
    """The body of a change (a PATCH) to what `create` makes: the same fields, each optional and
    without a default, so only those supplied change. Declared once, the two cannot drift."""
    declared: dict[str, Any] = {}
    for field_name, field in create._declared_fields.items():
        optional = copy.copy(field)
        optional.required = False
        optional.load_default = missing
        declared[field_name] = optional
    return type(name, (ApiSchema,), {**declared, "__doc__": doc, "__module__": create.__module__})


def flatten_messages(messages: Any, prefix: str = "") -> dict[str, str]:
    """marshmallow's nested messages as a flat map of field path to message."""
    if isinstance(messages, dict):
        flat: dict[str, str] = {}
        for key, value in messages.items():
            path = str(key) if not prefix else f"{prefix}.{key}"
            flat.update(flatten_messages(value, path))
        return flat
    if isinstance(messages, list | tuple):
        if all(isinstance(message, str) for message in messages):
            return {prefix or "body": " ".join(messages)}
        flat = {}
        for index, value in enumerate(messages):
            flat.update(flatten_messages(value, f"{prefix}.{index}" if prefix else str(index)))
        return flat
    return {prefix or "body": str(messages)}


def _walk(value: Any) -> Iterator[tuple[str, Any, int]]:
    """Every value in `value` as (field path, value, nesting depth), in document order.

    Iterative, so no nesting depth can exhaust Python's recursion limit. A key holding a NUL
    character is reported as a string at its path and its value is not visited.
    """
    pending: list[tuple[str, Any, int]] = [("", value, 0)]
    while pending:
        path, item, depth = pending.pop()
        yield path, item, depth
        if isinstance(item, dict):
            children = [
                (path + "." + str(key) if path else str(key), "\x00" if "\x00" in str(key) else child, depth + 1)
                for key, child in item.items()
            ]
        elif isinstance(item, list):
            children = [
                (f"{path}.{index}" if path else str(index), child, depth + 1) for index, child in enumerate(item)
            ]
        else:
            continue
        pending.extend(reversed(children))


def nul_paths(value: Any) -> list[str]:
    """Field paths of the strings (and keys) in `value` that contain a NUL character."""
    return [path or "body" for path, item, _ in _walk(value) if isinstance(item, str) and "\x00" in item]


def check_depth(value: Any) -> None:
    """Refuse JSON nested deeper than MAX_JSON_DEPTH, naming the top-level field that is."""
    for path, item, depth in _walk(value):
        if depth >= MAX_JSON_DEPTH and isinstance(item, dict | list) and item:
            raise _too_deep(path.partition(".")[0] or "body")


def _too_deep(field: str) -> ValidationFailed:
    return ValidationFailed(
        f"JSON may be nested at most {MAX_JSON_DEPTH} levels deep",
        details={field: f"Must not be nested deeper than {MAX_JSON_DEPTH} levels."},
    )


def load_data(schema: Schema, data: Any) -> Any:
    """Load already-decoded data through a schema, mapping its errors to 422.

    PostgreSQL stores no NUL character in text or jsonb, so a string holding one is refused
    here, naming where it is, rather than failing at the database. Nesting is bounded too:
    every JSON column is encoded again on the way to the database and back to the client.
    """
    check_depth(data)
    nul = nul_paths(data)
    if nul:
        raise ValidationFailed(details=dict.fromkeys(nul, "Must not contain NUL characters."))
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise ValidationFailed(details=flatten_messages(exc.messages)) from None


def is_json_content_type(content_type: str) -> bool:
    return content_type == "application/json" or (
        content_type.startswith("application/") and content_type.endswith("+json")
    )


async def load_json(request: web.Request, schema: Schema) -> Any:
    """Parse the request body as JSON and load it through `schema`."""
    return load_body(await request.read(), request.content_type, schema)


def load_body(raw: bytes, content_type: str, schema: Schema) -> Any:
    """A request body already read (the gateway's own routes get it from its checks), parsed as
    JSON and loaded through `schema`."""
    if not raw:
        raise BadRequest("a JSON body is required")
    if not is_json_content_type(content_type):
        raise BadRequest("the body must be sent as application/json")
    try:
        data = loads(raw)
    except ValueError as exc:
        if "depth limit" in str(exc):  # orjson's own limit (1024), far above ours
            raise _too_deep("body") from None
        raise BadRequest("the body is not valid JSON") from None
    return load_data(schema, data)


def load_query(request: web.Request, schema: Schema) -> Any:
    """Load the query string through `schema`; a list field takes repeated parameters."""
    data: dict[str, Any] = {}
    repeated: dict[str, str] = {}
    by_key = {field.data_key or name: field for name, field in schema.fields.items()}
    for key in set(request.query.keys()):
        values = request.query.getall(key)
        if isinstance(by_key.get(key), fields.List):
            data[key] = values
        elif len(values) > 1:
            repeated[key] = "Expected a single value."
        else:
            data[key] = values[0]
    if repeated:
        raise ValidationFailed(details=repeated)
    return load_data(schema, data)


def path_id(request: web.Request, name: str, what: str) -> str:
    """A resource id from the path; one that is not a UUID cannot exist."""
    value = request.match_info[name]
    if not is_uuid(value):
        raise NotFound(f"{what} not found")
    return value.lower()


async def load_endpoint_body(request: web.Request, endpoint: Endpoint) -> Any:
    """The JSON body of a request to an internal endpoint, loaded through the body its declaration names."""
    if endpoint.body is None:
        raise TypeError(f"{endpoint.name} declares no body")
    return await load_json(request, endpoint.body)


def load_endpoint_query(request: web.Request, endpoint: Endpoint) -> Any:
    """The query of a request to an internal endpoint, loaded through the query its declaration names."""
    if not isinstance(endpoint.query, Schema):
        raise TypeError(f"{endpoint.name} declares no query schema of its own")
    return load_query(request, endpoint.query)
