"""The scope matrix, generated from the route table: every route called with a key of each
scope alone; only the route's declared scope passes, every other is a 403 naming it (a route
declared without a scope passes with any)."""

from __future__ import annotations

import uuid

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.factories import IdentityFactory
from tests.reliability.routes import PATH_IDS, documented_routes, request_for, route_id

pytestmark = pytest.mark.slow


async def test_only_the_declared_scope_passes(gateway, identity: IdentityFactory):
    org = await identity.organization()
    keys = {scope: await identity.api_key(org, frozenset({scope})) for scope in sorted(ALL_SCOPES)}
    ids = {kind: str(uuid.uuid4()) for kind in {*PATH_IDS.values(), "document", "domain"}}
    ids["organization"] = org.id
    wrong, requests = [], 0
    for route in documented_routes():
        path, query, body = request_for(route, ids)
        for scope, key in keys.items():
            response = await gateway.request(route.method, path, params=query, json=body, headers={"x-api-key": key})
            requests += 1
            answer = await response.json()
            if route.scope is None or scope == route.scope:
                if response.status == 403 or response.status >= 500:
                    wrong.append((route_id(route), scope, response.status, answer))
            elif response.status != 403 or answer.get("details") != {"requiredScope": route.scope}:
                wrong.append((route_id(route), scope, response.status, answer))
    assert requests == len(documented_routes()) * len(ALL_SCOPES)
    assert wrong == []
