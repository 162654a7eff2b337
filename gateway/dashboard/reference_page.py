"""The API reference as a page: the OpenAPI document read once into what the template lists.

Each tag with its operations; each operation with its scope, parameters (described), the
example of its request and of its answer (pretty JSON) and its error statuses. Everything comes
from the document the gateway serves, so the page and /api/v1/openapi.json never disagree.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

from libs.common.encoding import loads

METHODS = ("get", "post", "put", "patch", "delete")
_CODE_SPAN = re.compile(r"`([^`]+)`")


def inline_code(text: str) -> Markup:
    """The document's markdown code spans (`content:read`) as <code>; everything else escaped."""
    return Markup(_CODE_SPAN.sub(lambda match: f"<code>{match.group(1)}</code>", str(escape(text))))


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str
    required: bool
    kind: str
    description: str


@dataclass(frozen=True)
class Field:
    """A field of a request body or of an answer's `data`: `items[].id` for one in a list's items."""

    name: str
    kind: str
    required: bool
    description: str


@dataclass(frozen=True)
class Operation:
    id: str
    method: str
    path: str
    summary: str
    description: str
    deprecated: bool
    parameters: tuple[Parameter, ...]
    request_example: str | None
    status: str
    response_example: str
    errors: tuple[tuple[str, str], ...]
    request_fields: tuple[Field, ...] = ()
    response_fields: tuple[Field, ...] = ()


@dataclass(frozen=True)
class Section:
    tag: str
    description: str
    operations: tuple[Operation, ...]

    @property
    def anchor(self) -> str:
        return tag_anchor(self.tag)


def tag_anchor(tag: str) -> str:
    """Where the reference page's section of `tag` starts (its element id)."""
    return "tag-" + tag.lower().replace(" ", "-")


def _kind(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "any")
    kinds = [kind] if isinstance(kind, str) else [each for each in kind if each != "null"]
    shown = " or ".join(kinds)
    if schema.get("format"):
        shown += f" ({schema['format']})"
    return shown


# How deep fields of fields are listed (`items[].product.name` is as far as a table stays readable).
FIELD_DEPTH = 2


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """A schema with its `$ref` (or a lone `allOf` reference) followed."""
    for _ in range(8):
        if "$ref" in schema:
            schema = {
                **components[schema["$ref"].rsplit("/", 1)[-1]],
                **{k: v for k, v in schema.items() if k != "$ref"},
            }
        elif len(schema.get("allOf", ())) == 1 and "properties" not in schema:
            schema = {**_resolve(schema["allOf"][0], components), **{k: v for k, v in schema.items() if k != "allOf"}}
        else:
            break
    return schema


def fields_of(
    schema: dict[str, Any] | None, components: dict[str, Any], prefix: str = "", depth: int = 0
) -> tuple[Field, ...]:
    """The fields of an object schema (those of its items, for a list), with their descriptions."""
    if schema is None:
        return ()
    schema = _resolve(schema, components)
    if schema.get("type") == "array" and "items" in schema:
        return fields_of(schema["items"], components, prefix + "[].", depth)
    required = set(schema.get("required", ()))
    found: list[Field] = []
    for name, declared in schema.get("properties", {}).items():
        resolved = _resolve(declared, components)
        description = declared.get("description") or resolved.get("description", "")
        if not description and "const" in resolved:
            description = f"Always `{resolved['const']}`."
        found.append(Field(prefix + name, _kind(resolved), name in required, description))
        is_list = resolved.get("type") == "array"
        inner = _resolve(resolved.get("items", {}), components) if is_list else resolved
        if depth + 1 < FIELD_DEPTH and "properties" in inner:
            found.extend(fields_of(inner, components, f"{prefix}{name}{'[]' if is_list else ''}.", depth + 1))
    return tuple(found)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def declared(item: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """An answer or a parameter, or the one of the document's `components` its `$ref` names (an
    error answer, a header parameter: each is declared once)."""
    if "$ref" not in item:
        return item
    kind, name = item["$ref"].removeprefix("#/components/").split("/")
    found: dict[str, Any] = document["components"][kind][name]
    return found


def _parameters(operation: dict[str, Any], document: dict[str, Any]) -> tuple[Parameter, ...]:
    return tuple(
        Parameter(p["name"], p["in"], bool(p.get("required")), _kind(p["schema"]), p.get("description", ""))
        for p in (declared(each, document) for each in operation["parameters"])
    )


def _operation(method: str, path: str, operation: dict[str, Any], document: dict[str, Any]) -> Operation:
    components = document["components"]["schemas"]
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    status = next(code for code in operation["responses"] if code.startswith("2"))
    media_type, answer = next(iter(operation["responses"][status]["content"].items()))
    errors = tuple(
        (code, declared(response, document)["description"])
        for code, response in operation["responses"].items()
        if code != status
    )
    return Operation(
        id=operation["operationId"],
        method=method.upper(),
        path=path,
        summary=operation["summary"],
        description=operation["description"],
        deprecated=bool(operation.get("deprecated")),
        parameters=_parameters(operation, document),
        request_example=None if body is None else _pretty(body["example"]),
        status=status,
        # A document (an App's llms.txt) is shown as it is; JSON indented.
        response_example=_pretty(answer["example"]) if media_type == "application/json" else answer["example"],
        errors=errors,
        request_fields=fields_of(body["schema"], components) if body else (),
        response_fields=fields_of(answer.get("schema", {}).get("properties", {}).get("data"), components),
    )


@lru_cache(maxsize=4)
def sections(document: bytes) -> tuple[Section, ...]:
    """The document's operations by tag, in the document's tag order (read once per document)."""
    parsed = loads(document)
    by_tag: dict[str, list[Operation]] = {tag["name"]: [] for tag in parsed["tags"]}
    for path, item in parsed["paths"].items():
        for method in METHODS:
            if method in item:
                operation = _operation(method, path, item[method], parsed)
                by_tag[item[method]["tags"][0]].append(operation)
    descriptions = {tag["name"]: tag["description"] for tag in parsed["tags"]}
    found = [Section(tag, descriptions[tag], tuple(ops)) for tag, ops in by_tag.items() if ops]
    webhooks = parsed.get("webhooks", {}).items()
    events = tuple(_webhook(event_type, item["post"], parsed) for event_type, item in webhooks)
    if events:
        found.append(Section(WEBHOOKS_TAG, WEBHOOKS_DESCRIPTION, events))
    return tuple(found)


WEBHOOKS_TAG = "Webhook events"
WEBHOOKS_DESCRIPTION = (
    "What a webhook endpoint is sent: one signed POST per event of a type it subscribed to, its body the"
    " payload shown (`data`: the resource as the API shows it)."
)


def _webhook(event_type: str, operation: dict[str, Any], document: dict[str, Any]) -> Operation:
    """An event type as the page lists it: the POST an endpoint receives, with its payload's example."""
    components = document["components"]["schemas"]
    payload = operation["requestBody"]["content"]["application/json"]
    return Operation(
        id=operation["operationId"],
        method="POST",
        path=event_type,
        summary=operation["summary"],
        description=operation["description"],
        deprecated=False,
        parameters=_parameters(operation, document),
        request_example=_pretty(payload["example"]),
        status="2XX",
        response_example="Any body: the status alone acknowledges the delivery.",
        errors=(("other", "Not acknowledged: the delivery is retried."),),
        request_fields=tuple(
            Field(item.name, item.kind, item.required, item.description or "The resource as the API shows it.")
            for item in fields_of(payload["schema"], components)
        ),
    )


@lru_cache(maxsize=4)
def introduction(document: bytes) -> dict[str, Any]:
    """The document's `info`: title, version, description, license."""
    info: dict[str, Any] = loads(document)["info"]
    return info
