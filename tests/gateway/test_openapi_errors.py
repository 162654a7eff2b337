"""Each error answer of the OpenAPI document is declared once, under `components/responses`, with
the error this API answers with that status as its example; the operations refer to it."""

from __future__ import annotations

from gateway.edge.openapi import build_document, render_document
from gateway.edge.openapi_errors import SERVER_ERRORS
from gateway.edge.route_table import ROUTES
from libs.common.errors import ERRORS_BY_STATUS

DOCUMENT = build_document(ROUTES, "https://api.example.com")
ANSWERS = DOCUMENT["components"]["responses"]
# The document's size when every operation carried its own copy of each error answer.
SIZE_WITH_COPIES = 732_743


def example_of(name: str) -> dict:
    example: dict = ANSWERS[name]["content"]["application/json"]["example"]
    return example


def referred() -> dict[str, set[str]]:
    """The status of each error answer the operations refer to, by the answer's reference."""
    found: dict[str, set[str]] = {}
    for item in DOCUMENT["paths"].values():
        for operation in item.values():
            for status, answer in operation["responses"].items():
                if "$ref" in answer:
                    found.setdefault(answer["$ref"], set()).add(status)
    return found


def test_every_error_answer_of_an_operation_refers_to_a_declared_one():
    inline = [
        (operation["operationId"], status)
        for item in DOCUMENT["paths"].values()
        for operation in item.values()
        for status, answer in operation["responses"].items()
        if status[0] not in "23" and "$ref" not in answer
    ]
    assert inline == []
    names = {reference.removeprefix("#/components/responses/") for reference in referred()}
    assert names == set(ANSWERS)


def test_each_answer_is_referred_to_under_one_status():
    assert all(len(statuses) == 1 for statuses in referred().values()), referred()


def test_each_error_example_carries_its_status_code():
    for reference, (status,) in referred().items():
        example = example_of(reference.removeprefix("#/components/responses/"))
        expected = ERRORS_BY_STATUS[500 if status == SERVER_ERRORS else int(status)].code
        assert (example["ok"], example["code"]) == (False, expected), status
        assert example["message"]


def test_the_examples_of_the_common_errors_say_what_went_wrong():
    assert example_of("Unauthorized") == {"ok": False, "code": "UNAUTHORIZED", "message": "invalid api key"}
    forbidden = example_of("Forbidden")
    assert forbidden["message"] == "this credential lacks the scope simulations:read"
    assert forbidden["details"] == {"requiredScope": "simulations:read"}
    assert example_of("NotFound")["code"] == "NOT_FOUND"
    assert example_of("Conflict")["code"] == "CONFLICT"
    assert example_of("RateLimited")["details"] == {"retryAfterSeconds": 1}
    assert example_of("ServiceUnavailable")["code"] == "SERVICE_UNAVAILABLE"
    assert example_of("UpstreamTimeout")["code"] == "UPSTREAM_TIMEOUT"
    assert example_of("PreconditionFailed")["details"]["etag"].startswith('"')
    assert example_of("Gone")["message"] == "GET /api/v1/domain/{id}/routing stopped responding on 2026-12-15"


def test_a_validation_failure_example_maps_a_field_to_its_message():
    example = example_of("ValidationFailed")
    assert example["code"] == "VALIDATION_FAILED"
    assert example["details"] == {"pages.0.slug": "Must be lowercase letters, digits and single hyphens."}


def test_the_error_envelope_has_no_example_of_one_error_for_all():
    assert "example" not in DOCUMENT["components"]["schemas"]["ErrorEnvelope"]


def test_the_document_is_at_most_two_thirds_its_size_with_copies():
    assert len(render_document(ROUTES, "https://api.example.com")) <= SIZE_WITH_COPIES * 2 // 3
