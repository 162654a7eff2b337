"""The reference describes everything it lists: each parameter and schema field has a description
(enumerations with their values), each operation an example of its request and of each answer,
and every example fits its schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gateway.dashboard.reference_page import declared
from gateway.edge.idempotency import HEADER as IDEMPOTENCY_HEADER
from gateway.edge.openapi import build_document
from gateway.edge.route_table import ROUTES

DOCUMENT = build_document(ROUTES, "https://api.example.com")
COMPONENTS = DOCUMENT["components"]


def operations() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every operation: the API's, and the webhooks' (the POST each event type is sent as)."""
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation
    for event_type, item in DOCUMENT["webhooks"].items():
        yield f"webhook {event_type}", item["post"]


def parameters() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every parameter of every operation, one it names from `components/parameters` as declared there."""
    for name, operation in operations():
        for parameter in operation["parameters"]:
            yield name, declared(parameter, DOCUMENT)


def properties(schema: dict[str, Any], where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every property of a schema, nested ones (in lists and combinations) included, by its path."""
    for name, sub in schema.get("properties", {}).items():
        yield f"{where}.{name}", sub
        yield from properties(sub, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        yield from properties(schema["items"], f"{where}[]")
    for combined in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(combined, []):
            yield from properties(sub, where)


def examples() -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(where, schema, example) of every parameter, request body and answer (an error's or a
    header's, of the answer or parameter under `components` its operations refer to)."""
    for name, parameter in parameters():
        if parameter["name"] != IDEMPOTENCY_HEADER:  # made fresh per write: no example to reuse
            yield f"{name} {parameter['name']}", parameter["schema"], parameter.get("example")
    for name, operation in operations():
        for media in operation.get("requestBody", {}).get("content", {}).values():
            yield f"{name} body", media["schema"], media.get("example")
        for status, answer in operation["responses"].items():
            for media in answer.get("content", {}).values():
                yield f"{name} {status}", media["schema"], media.get("example")
    for name, answer in COMPONENTS["responses"].items():
        for media in answer["content"].values():
            yield f"components/responses/{name}", media["schema"], media.get("example")


def test_every_parameter_is_described():
    undescribed = [f"{name} {p['name']}" for name, p in parameters() if not p.get("description")]
    assert undescribed == []


def test_every_schema_field_is_described():
    fields = [item for name, schema in COMPONENTS["schemas"].items() for item in properties(schema, name)]
    assert len(fields) > 400
    assert [where for where, schema in fields if not schema.get("description")] == []


def test_an_enumeration_lists_its_values_in_its_description():
    fields = [item for name, schema in COMPONENTS["schemas"].items() for item in properties(schema, name)]
    listed = [(f"{name} {p['name']}", {**p["schema"], "description": p["description"]}) for name, p in parameters()]
    enumerations = [(where, schema) for where, schema in fields + listed if schema.get("enum")]
    assert len(enumerations) > 10
    for where, schema in enumerations:
        missing = [value for value in schema["enum"] if value is not None and f"`{value}`" not in schema["description"]]
        assert missing == [], where


def test_the_runs_status_names_the_states_a_run_takes():
    run = COMPONENTS["schemas"]["Run"]["properties"]["status"]["description"]
    listed = next(
        p for p in DOCUMENT["paths"]["/api/v1/agent-simulation/runs"]["get"]["parameters"] if p["name"] == "status"
    )
    for state in ("queued", "running", "completed", "failed", "cancelled"):
        assert f"`{state}`" in run and f"`{state}`" in listed["description"]


def test_every_operation_has_an_example_of_its_request_and_of_each_answer():
    missing = [where for where, _, example in examples() if example is None]
    assert missing == []
    bodies = [op for _, op in operations() if "requestBody" in op]
    assert bodies and all(media.get("example") for op in bodies for media in op["requestBody"]["content"].values())


@pytest.mark.parametrize(("where", "schema", "example"), list(examples()), ids=lambda value: str(value)[:60])
def test_an_example_fits_its_schema(where: str, schema: dict[str, Any], example: Any):
    # The document's `#/components/...` references resolve against a root holding its components.
    validator = Draft202012Validator({**schema, "components": COMPONENTS})
    errors = [f"{'.'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(example)]
    assert errors == [], where


def test_an_idempotency_key_has_no_example_a_tool_would_reuse():
    headers = [p for _, p in parameters() if p["name"] == IDEMPOTENCY_HEADER]
    assert headers and all("example" not in header for header in headers)


def test_a_success_example_is_the_envelope_around_the_data():
    answer = DOCUMENT["paths"]["/api/v1/agent-simulation/runs/{runId}"]["get"]["responses"]["200"]
    example = answer["content"]["application/json"]["example"]
    assert example["ok"] is True and example["data"]["createdAt"].endswith("Z")


def test_a_resource_example_reads_like_a_live_one():
    """A run as a client meets one: not deleted, and numbers of a run rather than 1 in every field."""
    answer = DOCUMENT["paths"]["/api/v1/agent-simulation/runs/{runId}"]["get"]["responses"]["200"]
    run = answer["content"]["application/json"]["example"]["data"]
    assert run["deletedAt"] is None
    assert 0 < run["overallScore"] < 1 and run["tokensUsed"] > 1 and 0 < run["costUsd"] < 1
    assert run["volumeIds"] == ["vol-0a1b2c3d"]
    deleted = [where for where, _, example in examples() if _deleted(example)]
    assert deleted == [], "examples of deleted resources"


def _deleted(example: Any) -> bool:
    if isinstance(example, dict):
        return example.get("deletedAt") is not None or any(_deleted(value) for value in example.values())
    return isinstance(example, list) and any(_deleted(value) for value in example)


def test_the_license_has_an_address_and_the_overlapping_paths_are_explained():
    assert DOCUMENT["info"]["license"]["url"] == "https://api.example.com/docs#license"
    domains = DOCUMENT["paths"]["/api/v1/content/{id}/domains"]["patch"]["description"]
    search = DOCUMENT["paths"]["/api/v1/content/search/{orgId}"]["post"]["description"]
    assert "`/api/v1/content/search/{orgId}`" in domains and domains.endswith(search.partition(".")[2])


def errors_of(method: str, path: str) -> list[str]:
    responses = DOCUMENT["paths"][path][method]["responses"]
    return [status for status in responses if not status.startswith(("2", "3"))]


def test_each_operation_lists_the_errors_its_declaration_can_answer():
    # A read with no scope, no id and no query: only the credential, the rate limit and the server.
    assert errors_of("get", "/api/v1/credential") == ["401", "429", "5XX"]
    # A scoped list: its scope and its validated query, no id to miss.
    assert errors_of("get", "/api/v1/agent-simulation/runs") == ["401", "403", "422", "429", "5XX"]
    # A read by id without a query: no validation failure to answer.
    assert errors_of("get", "/api/v1/webhook-endpoints/{endpointId}") == ["401", "403", "404", "429", "5XX"]
    # A write with a body and an Idempotency-Key: malformed, late, large, conflicting or invalid.
    assert errors_of("post", "/api/v1/apps") == ["400", "401", "403", "408", "409", "413", "422", "429", "5XX"]
    # A write honouring If-Match adds the 412, in its place among the statuses.
    assert errors_of("put", "/api/v1/content/{id}") == [
        *("400", "401", "403", "404", "408", "409", "412", "413", "422", "429", "5XX")
    ]
    # A route past its sunset answers 410; one without a sunset never does.
    sunset = [route for route in ROUTES if route.sunset is not None]
    assert sunset and all("410" in errors_of(r.method.lower(), r.path) for r in sunset)
    assert all("410" not in errors_of(r.method.lower(), r.path) for r in ROUTES if r.sunset is None)
    lists = {tuple(errors_of(r.method.lower(), r.path)) for r in ROUTES}
    assert len(lists) >= 8  # not one list for every operation
