"""Deeply nested JSON: refused with a 422 naming the limit, at every depth, never a 500."""

from __future__ import annotations

import pytest

from libs.common.errors import ValidationFailed
from libs.common.schemas import MAX_JSON_DEPTH, check_depth, nul_paths
from tests.factories import IdentityFactory


def nested(levels: int) -> object:
    """A value `levels` deep: `levels` arrays around an integer."""
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


def test_nesting_is_checked_without_recursion():
    with pytest.raises(ValidationFailed) as caught:
        check_depth({"config": {"a": nested(100_000)}})
    assert caught.value.details == {"config": f"Must not be nested deeper than {MAX_JSON_DEPTH} levels."}
    assert nul_paths(nested(100_000)) == []


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH, 300, 600, 5_000])
async def test_a_body_nested_past_the_limit_is_a_422_naming_it(gateway, identity: IdentityFactory, levels: int):
    org = await identity.organization()
    headers = {"x-api-key": await identity.api_key(org)}
    # `{"metadata": ...}` is one level; the value inside makes the rest. Written by hand: the
    # standard encoder itself recurses.
    body = b'{"name": "Deep", "metadata": {"a": ' + b"[" * levels + b"1" + b"]" * levels + b"}}"
    headers["Content-Type"] = "application/json"
    response = await gateway.post("/api/v1/apps", data=body, headers=headers)
    assert response.status == 422
    body = await response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert str(MAX_JSON_DEPTH) in body["message"]
    # Past 1,024 levels the JSON parser itself stops, before any field is known.
    field = "metadata" if levels < 1024 else "body"
    assert body["details"] == {field: f"Must not be nested deeper than {MAX_JSON_DEPTH} levels."}


async def test_a_body_at_the_limit_is_stored_and_read_back(gateway, identity: IdentityFactory):
    org = await identity.organization()
    headers = {"x-api-key": await identity.api_key(org)}
    deepest = {"a": nested(MAX_JSON_DEPTH - 2)}  # metadata (1) + object (1) + arrays
    created = await gateway.post("/api/v1/apps", json={"name": "Deep", "metadata": deepest}, headers=headers)
    assert created.status == 201, await created.text()
    app_id = (await created.json())["data"]["id"]
    read = await gateway.get(f"/api/v1/apps/{app_id}", headers=headers)
    assert (await read.json())["data"]["metadata"] == deepest
