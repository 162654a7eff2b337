"""Every success answer the gateway gives in the suite is checked against its route's declared
response schema, the one the OpenAPI document (and so every generated client) is made from: a
handler whose answer drifts from its declaration fails the test that met it."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from gateway.edge.route_table import ROUTES
from libs.common.encoding import loads
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
