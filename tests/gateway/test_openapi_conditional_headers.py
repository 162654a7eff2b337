"""The OpenAPI document declares Idempotency-Key on writes and ETag, If-Match and If-None-Match on
versioned resources, from the route declarations."""

from __future__ import annotations

from gateway.edge.openapi import build_document
from gateway.edge.route_table import ROUTES

DOCUMENT = build_document(ROUTES, "https://api.example.com")


def operation(method: str, path: str) -> dict:
    found: dict = DOCUMENT["paths"][path][method]
    return found


def headers_of(method: str, path: str) -> set[str]:
    return {parameter["name"] for parameter in operation(method, path)["parameters"] if parameter["in"] == "header"}


def test_every_write_takes_an_idempotency_key_and_may_answer_replayed():
    writes = [(route.method.lower(), route.path, route.status) for route in ROUTES if route.method != "GET"]
    assert writes
    for method, path, status in writes:
        assert "Idempotency-Key" in headers_of(method, path), (method, path)
        assert "Idempotent-Replayed" in operation(method, path)["responses"][str(status)]["headers"]
    key = next(p for p in operation("post", "/api/v1/apps")["parameters"] if p["name"] == "Idempotency-Key")
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
