"""The OpenAPI document's `webhooks` (OpenAPI 3.1): every event type of the catalog, with the
schema of its `data` that the payloads tests receive are checked against."""

from __future__ import annotations

from marshmallow import fields

from gateway.edge.openapi import build_document
from gateway.edge.route_table import ROUTES
from libs.contract.api_schema import ApiSchema
from libs.contract.event import Event
from services.events.catalog import EVENTS
from services.events.samples import example_data

DOCUMENT = build_document(ROUTES, "https://api.example.com")


def payload_schema(document: dict, event_type: str) -> dict:
    schema: dict = document["webhooks"][event_type]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return schema


def test_every_event_type_is_a_webhook_with_its_data_shape():
    assert list(DOCUMENT["webhooks"]) == [event.type for event in EVENTS]
    for event in EVENTS:
        schema = payload_schema(DOCUMENT, event.type)
        assert schema["required"] == ["id", "type", "occurredAt", "organizationId", "data"]
        assert schema["properties"]["type"]["const"] == event.type
        assert schema["properties"]["data"] == {"$ref": f"#/components/schemas/{event.data.__name__}"}
        assert DOCUMENT["webhooks"][event.type]["post"]["summary"] == event.summary


async def test_the_served_document_lists_the_webhooks(gateway):
    async with gateway.get("/api/v1/openapi.json") as answer:
        assert answer.status == 200
        served = await answer.json()
    assert served["openapi"].startswith("3.1") and set(served["webhooks"]) == {event.type for event in EVENTS}
    data = served["components"]["schemas"]["StoredRoute"]["properties"]
    assert "deletedAt" in data and "target" not in data


def test_a_field_added_to_a_shape_shows_in_its_webhook():
    class Tagged(ApiSchema):
        id = fields.String(required=True)
        release_channel = fields.String(required=True, metadata={"description": "Where it ships."})

    document = build_document(ROUTES, "https://api.example.com", (Event("thing.tagged", "Tagged.", Tagged, "Apps"),))
    assert payload_schema(document, "thing.tagged")["properties"]["data"] == {"$ref": "#/components/schemas/Tagged"}
    assert "releaseChannel" in document["components"]["schemas"]["Tagged"]["properties"]


def test_a_test_event_carries_the_example_its_webhook_shows():
    for event in EVENTS:
        shown = DOCUMENT["webhooks"][event.type]["post"]["requestBody"]["content"]["application/json"]["example"]
        assert example_data(event.type) == shown["data"], event.type
