"""The OpenAPI document covers every content operation, with the deprecated ones marked."""

from __future__ import annotations

OPERATIONS = {
    ("/api/v1/site/pages", "get"): (None, "SitePageList", False),
    ("/api/v1/site/pages", "post"): ("PagesCreate", "PagesCreated", True),
    ("/api/v1/site/pages", "patch"): ("PagesUpdate", "PagesUpdated", True),
    ("/api/v1/site/pages", "delete"): ("PagesDelete", "PagesDeleted", True),
    ("/api/v1/content/by-path", "get"): (None, "ContentByPath", False),
    ("/api/v1/content/{id}", "get"): (None, "ContentDocument", False),
    ("/api/v1/content/{id}", "patch"): ("PriorityUpdate", "ContentDocument", False),
    ("/api/v1/content/{id}", "put"): ("ContentUpdate", "ContentDocument", False),
    ("/api/v1/content/{id}/domains", "patch"): ("DomainsUpdate", "DocumentDomains", False),
}


async def test_every_content_operation_is_documented(gateway):
    response = await gateway.get("/api/v1/openapi.json")
    document = await response.json()
    for (path, method), (request, answer, deprecated) in OPERATIONS.items():
        operation = document["paths"][path][method]
        data = operation["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]
        assert data == {"$ref": f"#/components/schemas/{answer}"}, (path, method)
        assert operation.get("deprecated", False) is deprecated, (path, method)
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if method == "get":
            assert body is None
        else:
            assert body == {"$ref": f"#/components/schemas/{request}"}, (path, method)


async def test_query_parameters_and_nullable_fields_are_declared(gateway):
    document = await (await gateway.get("/api/v1/openapi.json")).json()
    parameters = document["paths"]["/api/v1/site/pages"]["get"]["parameters"]
    assert [parameter["name"] for parameter in parameters] == [
        "productId",
        "page",
        "pageSize",
        "query",
        "status",
        "type",
        "isManual",
        "pathPrefix",
        "hasContent",
        "domainId",
        "domain",
        "orderBy",
        "orderByDirection",
    ]
    schemas = document["components"]["schemas"]
    assert schemas["ContentDocument"]["properties"]["publishedAt"]["type"] == ["string", "null"]
    priority = schemas["ContentDocument"]["properties"]["priority"]
    assert {**priority, "description": ""} == {"type": "number", "minimum": 0, "maximum": 100, "description": ""}
    assert schemas["ContentDocument"]["additionalProperties"] is False
