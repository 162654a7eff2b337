"""Every success answer the gateway gives in the suite is checked against its route's declared
response schema, the one the OpenAPI document (and so every generated client) is made from: a
handler whose answer drifts from its declaration fails the test that met it. So is every success
answer of an internal endpoint, against the answer its declaration names (libs/contract/internal_bodies.py),
the type its clients read."""

from __future__ import annotations

import types
from functools import cache
from importlib import import_module
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints, is_typeddict

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from marshmallow import Schema

from gateway.edge.route_table import ROUTES
from libs.common.encoding import loads
from libs.contract.internal import endpoints_of
from libs.contract.internal_bodies import Owned, Text
from services.events.catalog import BY_TYPE
from services.events.types import PING

DECLARED = {route.name: route for route in ROUTES if route.response is not None}


def answer_shapes_middleware(violations: list[str]) -> Middleware:
    """Records in `violations` each success answer that its route's response schema refuses.

    Innermost, so it sees the answer as the route made it; a streamed answer (a whole list of
    route candidates) is not held, its pages are."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        route = DECLARED.get(request.match_info.route.name or "")
        body = response.body if isinstance(response, web.Response) else None
        if (
            route is not None
            and route.response is not None
            and 200 <= response.status < 300
            and isinstance(body, bytes)
        ):
            refused = route.response().validate(loads(body)["data"], many=route.response_many)
            if refused:
                violations.append(f"{route.method} {route.path}: {refused}")
        return response

    return check


def assert_event_shape(payload: dict[str, Any]) -> None:
    """A webhook payload a test received: a type of the catalog (or the test ping) whose `data` its
    declared schema accepts, the same schema the OpenAPI document's `webhooks` show."""
    assert set(payload) == {"id", "type", "occurredAt", "organizationId", "data"}, payload
    if payload["type"] == PING:
        return
    assert payload["type"] in BY_TYPE, f"{payload['type']} is not in the event catalog"
    refused = BY_TYPE[payload["type"]].data().validate(payload["data"])
    assert refused == {}, f"{payload['type']}: its data does not match its declared shape: {refused}"


@cache
def owned_schema(owned: Owned) -> Schema:
    """The response schema an `Owned` names (`module:Schema`)."""
    module, _, name = owned.schema.partition(":")
    schema: Schema = getattr(import_module(module), name)()
    return schema


def refusals(value: Any, declared: Any, path: str = "answer") -> list[str]:
    """Where the decoded JSON `value` departs from the declared answer type (a TypedDict and what it
    is made of, an `Owned` resource checked by its owner's schema); nothing when it conforms."""
    origin = get_origin(declared)
    if declared is Any:
        return []
    if origin is Annotated:
        base, *metadata = get_args(declared)
        owned = [item for item in metadata if isinstance(item, Owned)]
        if owned:
            refused = owned_schema(owned[0]).validate(value)
            return [f"{path}: {refused}"] if refused else []
        return refusals(value, base, path)
    if is_typeddict(declared):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        hints = get_type_hints(declared, include_extras=True)
        found = [f"{path}.{key}: missing" for key in sorted(declared.__required_keys__ - value.keys())]
        found += [f"{path}.{key}: not declared" for key in sorted(value.keys() - hints.keys())]
        for key in sorted(value.keys() & hints.keys()):
            found += refusals(value[key], hints[key], f"{path}.{key}")
        return found
    if origin in (Union, types.UnionType):
        alternatives = [refusals(value, alternative, path) for alternative in get_args(declared)]
        return [] if any(not found for found in alternatives) else min(alternatives, key=len)
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: not an array"]
        (item,) = get_args(declared)
        return [refused for index, each in enumerate(value) for refused in refusals(each, item, f"{path}.{index}")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        _, item = get_args(declared)
        return [refused for key, each in value.items() for refused in refusals(each, item, f"{path}.{key}")]
    if declared is None or declared is type(None):
        return [] if value is None else [f"{path}: not null"]
    # As mypy takes an int where a float is declared; a boolean is neither.
    expected = {str: str, bool: bool, int: int, float: (int, float)}[declared]
    if isinstance(value, expected) and (declared is bool or not isinstance(value, bool)):
        return []
    return [f"{path}: not of type {declared.__name__}: {value!r}"]


def internal_answers_middleware(part: str, violations: list[str]) -> Middleware:
    """Records in `violations` each success answer of `part`'s internal endpoints that the answer its
    declaration names refuses (innermost, as `answer_shapes_middleware`)."""
    declared = {endpoint.name: endpoint for endpoint in endpoints_of(part)}

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        endpoint = declared.get(request.match_info.route.name or "")
        if endpoint is None or not 200 <= response.status < 300:
            return response
        where = f"{part} {endpoint.method} {endpoint.path}"
        if isinstance(endpoint.answer, Text):
            if response.content_type not in endpoint.answer.media_types:
                violations.append(f"{where}: answered {response.content_type}")
        elif isinstance(response, web.Response) and isinstance(response.body, bytes):
            violations.extend(f"{where}: {refused}" for refused in refusals(loads(response.body), endpoint.answer))
        return response

    return check
