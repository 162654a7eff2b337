"""Examples for the OpenAPI document, made from its own schemas so they cannot drift from them.

An example follows its schema: a `const`, the default or the first `enum` value, null for the
nullable fields a live resource leaves null (`deletedAt`), the glossary's example for the field's
name (libs/contract/examples.py) where the type alone would make a poor one, else a value of the
type and format within the schema's bounds. Objects list every property; arrays
hold as many items as they must (at least one). tests/gateway/test_openapi_reference.py
validates every example against its schema.

The gateway's document (gateway/edge/openapi.py) and the events part's test events (an example
of each event type's `data`, services/events/samples.py) both make theirs here, so a test event is
the example the document shows (tests/gateway/test_openapi_webhooks.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema

from libs.contract.examples import EXAMPLES, NULL_EXAMPLES
from libs.contract.validators import JSON_SCHEMA_COMPONENTS

OPENAPI_VERSION = "3.1.0"

EXAMPLE_UUID = "3f2b8c1e-5a7d-4e9b-8c21-6d0f4a9e7b35"
EXAMPLE_TIME = "2026-11-02T09:30:00Z"
FORMATS = {"uuid": EXAMPLE_UUID, "date-time": EXAMPLE_TIME, "email": "ada@example.com", "uri": "https://example.com"}
# How deep a self-referring schema is followed before the example stops at an empty value: past
# the deepest answer (an answer list's analysis spans: envelope, items, brands, spans, ten levels).
MAX_DEPTH = 12


class Examples:
    """Examples of the schemas of one document, resolving its `#/components/schemas/...` references."""

    def __init__(self, components: dict[str, Any]) -> None:
        self._components = components

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self._components[schema["$ref"].rsplit("/", 1)[-1]]
        return schema

    def of(self, schema: dict[str, Any], name: str | None = None, depth: int = 0) -> Any:
        """An example value of `schema`, for a field called `name` when it is one."""
        schema = self._resolve(schema)
        if "example" in schema:
            return schema["example"]
        if "const" in schema:
            return schema["const"]
        if schema.get("default") is not None:
            return schema["default"]
        if schema.get("enum"):
            return next(value for value in schema["enum"] if value is not None)
        for combined in ("allOf", "anyOf", "oneOf"):
            if schema.get(combined):
                return self.of(schema[combined][0], name, depth)
        kind = schema.get("type")
        if isinstance(kind, list):  # ["string", "null"]: an example shows the value, not the null
            if "null" in kind and name in NULL_EXAMPLES:
                return None
            kind = next((each for each in kind if each != "null"), "null")
        if kind == "string" and schema.get("format") in FORMATS:  # a name's example may be of another format
            return FORMATS[schema["format"]]
        if name in EXAMPLES and _fits(EXAMPLES[name], kind):
            return EXAMPLES[name]
        if depth > MAX_DEPTH:
            return None
        if kind == "object" or "properties" in schema:
            return {key: self.of(sub, key, depth + 1) for key, sub in schema.get("properties", {}).items()}
        if kind == "array":
            count = max(1, schema.get("minItems", 1))
            return [self.of(schema.get("items", {}), _singular(name), depth + 1) for _ in range(count)]
        if kind in ("integer", "number"):
            return _number(schema, kind)
        if kind == "boolean":
            return True
        if kind == "string":
            return _string(schema, name)
        return None if kind == "null" else {}  # any JSON value


def schema_examples(schemas: Mapping[str, type[Schema]]) -> dict[str, Any]:
    """An example of each declared schema, by key, as the document shows it: the schema made JSON
    Schema by apispec's marshmallow plugin, as the document's are, and its example made from that."""
    plugin = MarshmallowPlugin()
    spec = APISpec(title="Examples", version="0", openapi_version=OPENAPI_VERSION, plugins=[plugin])
    for name, schema in JSON_SCHEMA_COMPONENTS.items():
        spec.components.schema(name, schema)
    assert plugin.converter is not None  # set when the spec took the plugin
    converter = plugin.converter
    resolved = {
        key: converter.resolve_nested_schema(schema)  # type: ignore[no-untyped-call]  # apispec is untyped
        for key, schema in schemas.items()
    }
    examples = Examples(spec.to_dict()["components"]["schemas"])
    return {key: examples.of(json_schema) for key, json_schema in resolved.items()}


def _fits(value: Any, kind: str | None) -> bool:
    """Whether an example by name suits this field's type (a `status` may be text or a number)."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    return kind != "object"


def _singular(name: str | None) -> str | None:
    """An array's items are named for its field (`tags`) by the singular where the glossary has it."""
    return None if name is None else (name if name in EXAMPLES else name.removesuffix("s"))


def _number(schema: dict[str, Any], kind: str) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: int | float = max(low, 1)
    if high is not None:
        value = min(value, high)
    return int(value) if kind == "integer" else float(value)


def _string(schema: dict[str, Any], name: str | None) -> str:
    if schema.get("format") in FORMATS:
        return FORMATS[schema["format"]]
    if name is not None and (name == "id" or name.endswith("Id")):
        return EXAMPLE_UUID
    if name is not None and (name.endswith("At") or name.endswith("Since")):
        return EXAMPLE_TIME  # a timestamp declared as text
    value = "example"
    minimum, maximum = schema.get("minLength", 0), schema.get("maxLength")
    value = value.ljust(minimum, "x")
    return value if maximum is None else value[:maximum]
