"""The OpenAPI document covers every apps route, with its schemas; legacy routing is marked deprecated."""

from __future__ import annotations

import re

APPS_OPERATIONS = {
    ("get", "/api/v1/apps"),
    ("post", "/api/v1/apps"),
    ("get", "/api/v1/apps/{appId}"),
    ("patch", "/api/v1/apps/{appId}"),
    ("patch", "/api/v1/apps/{appId}/app-config"),
    ("get", "/api/v1/apps/{appId}/resources"),
    ("post", "/api/v1/apps/{appId}/resources"),
    ("get", "/api/v1/apps/{appId}/domains"),
    ("post", "/api/v1/apps/{appId}/domains"),
    ("get", "/api/v1/apps/{appId}/route-candidates"),
    ("post", "/api/v1/apps/{appId}/routes/import-preview"),
    ("post", "/api/v1/apps/{appId}/routes/batch"),
    ("patch", "/api/v1/apps/{appId}/routes/{routeId}"),
    ("get", "/api/v1/apps/{appId}/routes/{routeId}"),
    ("get", "/api/v1/domain/{id}/routing"),
}


async def openapi(gateway) -> dict:
    response = await gateway.get("/api/v1/openapi.json")
    assert response.status == 200
    return await response.json()


async def test_every_apps_operation_is_documented_with_its_bodies(gateway):
    document = await openapi(gateway)
    documented = {(method, path) for path, item in document["paths"].items() for method in item}
    assert APPS_OPERATIONS <= documented
    for method, path in APPS_OPERATIONS:
        operation = document["paths"][path][method]
        success = next(iter(operation["responses"].values()))
        assert success["content"]["application/json"]["schema"]["properties"]["data"], (method, path)
        if method != "get":
            assert "requestBody" in operation, (method, path)


async def test_list_operations_answer_arrays(gateway):
    document = await openapi(gateway)
    for path in ("/api/v1/apps", "/api/v1/apps/{appId}/resources", "/api/v1/apps/{appId}/domains"):
        data = document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert data["properties"]["data"]["type"] == "array"


async def test_route_candidates_document_their_query(gateway):
    document = await openapi(gateway)
    parameters = document["paths"]["/api/v1/apps/{appId}/route-candidates"]["get"]["parameters"]
    query = {p["name"]: p for p in parameters if p["in"] == "query"}
    assert set(query) == {"productId", "status", "includeRouted", "limit", "cursor"}
    assert not any(parameter.get("required", False) for parameter in query.values())
    assert "not a resource of the app is 404" in query["productId"]["description"]
    assert (query["limit"]["schema"]["minimum"], query["limit"]["schema"]["maximum"]) == (1, 1000)
    for name in ("limit", "cursor"):
        assert query[name]["description"].startswith("Beyond the contract"), name


async def test_route_candidates_answer_the_contracts_fields_and_a_next_cursor_only_when_paged(gateway):
    document = await openapi(gateway)
    answer = document["components"]["schemas"]["RouteCandidates"]
    assert set(answer["required"]) == {"appId", "candidateCount", "candidates"}
    assert answer["properties"]["nextCursor"]["type"] == ["string", "null"]
    assert answer["properties"]["nextCursor"]["description"].startswith("Beyond the contract")


async def test_legacy_routing_is_deprecated_and_may_be_gone(gateway):
    operation = (await openapi(gateway))["paths"]["/api/v1/domain/{id}/routing"]["get"]
    assert operation["deprecated"] is True
    assert "410" in operation["responses"]


async def test_created_resources_answer_201(gateway):
    paths = (await openapi(gateway))["paths"]
    for path in ("/api/v1/apps", "/api/v1/apps/{appId}/resources", "/api/v1/apps/{appId}/domains"):
        assert "201" in paths[path]["post"]["responses"]


async def test_the_documented_hostname_pattern_is_the_contracts_as_the_service_applies_it(gateway):
    schema = (await openapi(gateway))["components"]["schemas"]["DomainCreate"]["properties"]["domain"]
    assert schema["pattern"] == r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$"
    pattern = re.compile(schema["pattern"])
    assert pattern.fullmatch("docs.example.com")
    assert not pattern.fullmatch("Docs.Example.COM") and not pattern.fullmatch("docs.exampl\u212a.com")


async def test_what_agents_read_is_documented_as_text_with_its_etag(gateway):
    document = await openapi(gateway)
    for tail, media_type in (
        ("llms.txt", "text/plain"),
        ("llms-full.txt", "text/plain"),
        ("pages/markdown", "text/markdown"),
        ("sitemap.xml", "application/xml"),
    ):
        operation = document["paths"][f"/api/v1/apps/{{appId}}/{tail}"]["get"]
        assert operation["x-required-scope"] == "content:read"
        [(declared, answer)] = operation["responses"]["200"]["content"].items()
        assert (declared, answer["schema"]) == (media_type, {"type": "string"})
        assert isinstance(answer["example"], str)
        assert {"304", "404", "409"} <= operation["responses"].keys()
        assert {"$ref": "#/components/parameters/IfNoneMatch"} in operation["parameters"]
