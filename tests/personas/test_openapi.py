"""The personas routes in the gateway's OpenAPI document."""

from __future__ import annotations

PATHS = {
    "/api/v1/products/{productId}/personas": {"get", "post"},
    "/api/v1/personas/{personaId}": {"get", "put", "delete"},
    "/api/v1/products/{productId}/topics": {"get", "post"},
    "/api/v1/prompt-suggestions": {"get"},
    "/api/v1/prompt-suggestions/regenerate": {"post"},
    "/api/v1/prompt-suggestions/{suggestionId}": {"patch"},
}


async def document(gateway) -> dict:
    response = await gateway.get("/api/v1/openapi.json")
    assert response.status == 200
    return await response.json()


async def test_every_personas_route_is_documented(gateway):
    paths = (await document(gateway))["paths"]
    assert {path: set(paths[path]) for path in PATHS} == PATHS


async def test_regenerate_declares_its_six_error_responses_and_the_gateways_own(gateway):
    operation = (await document(gateway))["paths"]["/api/v1/prompt-suggestions/regenerate"]["post"]
    # The contract's six, then the body timeout and the rate limit the gateway answers on any operation.
    assert sorted(operation["responses"]) == ["200", "400", "401", "403", "404", "408", "422", "429", "500"]
    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RegenerateRequest"
    }
    assert operation["x-required-scope"] == "prompts:write"


async def test_persona_update_declares_the_contracts_statuses(gateway):
    operation = (await document(gateway))["paths"]["/api/v1/personas/{personaId}"]["put"]
    # The contract's 500 is within the server errors' range.
    assert {"400", "401", "403", "404", "409", "422", "5XX"} <= set(operation["responses"])
    assert operation["x-required-scope"] == "products:write"


async def test_routes_without_a_declared_list_keep_the_derived_error_statuses(gateway):
    operation = (await document(gateway))["paths"]["/api/v1/agent-simulation/runs"]["get"]
    assert list(operation["responses"]) == ["200", "401", "403", "422", "429", "5XX"]
