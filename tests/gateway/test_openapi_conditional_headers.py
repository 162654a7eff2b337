"""The OpenAPI document declares Idempotency-Key on writes and ETag, If-Match and If-None-Match on
versioned resources, from the route declarations; each header once, under `components`."""

from __future__ import annotations

import json

from gateway.dashboard.reference_page import declared
from gateway.edge.openapi import build_document
from gateway.edge.route_table import ROUTES

DOCUMENT = build_document(ROUTES, "https://api.example.com")


def operation(method: str, path: str) -> dict:
    found: dict = DOCUMENT["paths"][path][method]
    return found


def headers_of(method: str, path: str) -> set[str]:
    parameters = [declared(parameter, DOCUMENT) for parameter in operation(method, path)["parameters"]]
    return {parameter["name"] for parameter in parameters if parameter["in"] == "header"}


def test_every_write_takes_an_idempotency_key_and_may_answer_replayed():
    writes = [(route.method.lower(), route.path, route.status) for route in ROUTES if route.method != "GET"]
    assert writes
    for method, path, status in writes:
        assert "Idempotency-Key" in headers_of(method, path), (method, path)
        assert "Idempotent-Replayed" in operation(method, path)["responses"][str(status)]["headers"]
    key = DOCUMENT["components"]["parameters"]["IdempotencyKey"]
    assert key["name"] == "Idempotency-Key" and key["in"] == "header" and key["required"] is False
    assert key["schema"] == {"type": "string", "minLength": 1, "maxLength": 255}
    assert "Idempotency-Key" not in headers_of("get", "/api/v1/apps")


def test_a_versioned_read_takes_if_none_match_and_may_answer_304():
    read = operation("get", "/api/v1/content/{id}")
    assert "If-None-Match" in headers_of("get", "/api/v1/content/{id}")
    assert "ETag" in read["responses"]["200"]["headers"]
    assert "304" in read["responses"]
    assert "304" not in operation("get", "/api/v1/apps")["responses"]


def test_a_versioned_write_takes_if_match_and_may_answer_412():
    versioned_writes = (
        ("put", "/api/v1/content/{id}"),
        ("patch", "/api/v1/apps/{appId}/routes/{routeId}"),
        ("put", "/api/v1/personas/{personaId}"),
        ("patch", "/api/v1/apps/{appId}/app-config"),
    )
    for method, path in versioned_writes:
        assert "If-Match" in headers_of(method, path), path
        assert "412" in operation(method, path)["responses"], path
        assert "ETag" in operation(method, path)["responses"]["200"]["headers"], path
    assert "If-Match" not in headers_of("patch", "/api/v1/content/{id}/domains")


def test_every_write_names_the_declared_idempotency_key_and_replayed_header():
    writes = [(route.method.lower(), route.path, route.status) for route in ROUTES if route.method != "GET"]
    assert len(writes) > 40
    for method, path, status in writes:
        assert {"$ref": "#/components/parameters/IdempotencyKey"} in operation(method, path)["parameters"], path
        replayed = operation(method, path)["responses"][str(status)]["headers"]["Idempotent-Replayed"]
        assert replayed == {"$ref": "#/components/headers/IdempotentReplayed"}, path


def test_a_versioned_resource_names_the_declared_etag_and_conditions():
    read, write = operation("get", "/api/v1/content/{id}"), operation("put", "/api/v1/content/{id}")
    assert {"$ref": "#/components/parameters/IfNoneMatch"} in read["parameters"]
    assert {"$ref": "#/components/parameters/IfMatch"} in write["parameters"]
    etag = {"$ref": "#/components/headers/ETag"}
    assert read["responses"]["200"]["headers"] == read["responses"]["304"]["headers"] == {"ETag": etag}
    assert write["responses"]["200"]["headers"]["ETag"] == etag


def test_every_webhook_names_the_declared_webhook_headers():
    names = ("WebhookId", "WebhookTimestamp", "WebhookSignature")
    assert [DOCUMENT["components"]["parameters"][name]["name"] for name in names] == [
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
    ]
    named = [{"$ref": f"#/components/parameters/{name}"} for name in names]
    assert all(item["post"]["parameters"] == named for item in DOCUMENT["webhooks"].values())


def test_no_operation_spells_a_header_out():
    items = [*DOCUMENT["paths"].values(), *DOCUMENT["webhooks"].values()]
    assert [p for item in items for op in item.values() for p in op["parameters"] if p.get("in") == "header"] == []
    # Each header's description is written once in the whole document: in its component.
    text = json.dumps(DOCUMENT)
    for kind in ("parameters", "headers"):
        for name, declaration in DOCUMENT["components"][kind].items():
            assert text.count(json.dumps(declaration["description"])) == 1, name


def test_a_document_lists_only_the_headers_its_operations_name():
    reads = tuple(route for route in ROUTES if route.method == "GET" and not route.versioned)
    components = build_document(reads, "https://api.example.com", ())["components"]
    assert "parameters" not in components and "headers" not in components
