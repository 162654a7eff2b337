"""Small points of the contract: integers as JSON Schema has them, 429 documented everywhere."""

from __future__ import annotations

import pytest

from tests.factories import IdentityFactory


@pytest.mark.parametrize(("n_results", "status"), [(48.0, 200), (3, 200), (48.5, 422), ("48", 422), (True, 422)])
async def test_n_results_is_an_integer_as_json_schema_reads_one(gateway, identity: IdentityFactory, n_results, status):
    org = await identity.organization()
    response = await gateway.post(
        f"/api/v1/content/search/{org.id}",
        json={"query": "publishing", "nResults": n_results},
        headers={"x-api-key": await identity.api_key(org)},
    )
    assert response.status == status, await response.text()
    if status == 422:
        assert (await response.json())["details"] == {"nResults": "Not a valid integer."}


async def test_every_operation_documents_429_and_the_body_rules(gateway):
    document = await (await gateway.get("/api/v1/openapi.json")).json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert "429" in operation["responses"], (method, path)
            if "requestBody" in operation:
                assert "408" in operation["responses"], (method, path)
    assert "NUL" in document["info"]["description"]
    assert "64 levels" in document["info"]["description"]
