"""Validation at the edge: one helper for JSON bodies, one for query strings.

A body that is not JSON is a 400 `BAD_REQUEST`; a body or query that does not fit the schema
is a 422 `VALIDATION_FAILED` whose `details` map each field path ("pages.0.slug") to a message.
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web
from marshmallow import RAISE, Schema, ValidationError, fields

from libs.common.encoding import loads
from libs.common.errors import BadRequest, ValidationFailed

_CAMEL_BOUNDARY = re.compile(r"_([a-z0-9])")


def camel_case(name: str) -> str:
    return _CAMEL_BOUNDARY.sub(lambda match: match.group(1).upper(), name)


class ApiSchema(Schema):
    """A schema whose Python attributes are snake_case and whose JSON keys are camelCase."""

    class Meta:
        unknown = RAISE

    def on_bind_field(self, field_name: str, field_obj: fields.Field[Any]) -> None:
        field_obj.data_key = camel_case(field_obj.data_key or field_name)


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


def nul_paths(value: Any, prefix: str = "") -> list[str]:
    """Field paths of the strings (and keys) in `value` that contain a NUL character."""
    if isinstance(value, str):
        return [prefix or "body"] if "\x00" in value else []
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            path = str(key) if not prefix else f"{prefix}.{key}"
            found += [path] if "\x00" in str(key) else nul_paths(item, path)
        return found
    if isinstance(value, list):
        return [
            path
            for index, item in enumerate(value)
            for path in nul_paths(item, f"{prefix}.{index}" if prefix else str(index))
        ]
    return []


def load_data(schema: Schema, data: Any) -> Any:
    """Load already-decoded data through a schema, mapping its errors to 422.

    PostgreSQL stores no NUL character in text or jsonb, so a string holding one is refused
    here, naming where it is, rather than failing at the database.
    """
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
    raw = await request.read()
    if not raw:
        raise BadRequest("a JSON body is required")
    if not is_json_content_type(request.content_type):
        raise BadRequest("the body must be sent as application/json")
    try:
        data = loads(raw)
    except ValueError:
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
