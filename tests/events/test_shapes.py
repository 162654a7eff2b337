"""A resource's shape is declared once (libs/common/shapes.py): a field added to the App schema
shows in the API's answer, in the OpenAPI document and in the webhook payload, with no other edit."""

from __future__ import annotations

import secrets

import pytest
from marshmallow import fields

from gateway.edge.openapi import build_document
from gateway.edge.route_table import ROUTES
from libs.common.shapes import Shape
from services.apps import shapes
from services.apps.schemas import responses
from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.factories import AppsProducts


def all_subclasses(cls: type) -> list[type]:
    return [sub for direct in cls.__subclasses__() for sub in (direct, *all_subclasses(direct))]


@pytest.fixture
def app_with_a_new_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one edit: a field declared on the App schema (here computed by PostgreSQL from a column)."""
    field = fields.Integer(required=True, metadata={"description": "How long the name is."})
    for schema in (responses.App, *all_subclasses(responses.App)):  # marshmallow copies fields into subclasses
        monkeypatch.setattr(schema, "_declared_fields", {**schema._declared_fields, "name_length": field})
    grown = Shape(responses.App, expressions={"name_length": "length(name)"})
    for attribute, value in vars(grown).items():
        monkeypatch.setattr(shapes.APP, attribute, value)


async def test_a_field_added_to_the_app_shape_shows_everywhere(
    app_with_a_new_field: None, tenant: Tenant, receivers: list[Receiver], apps_products: AppsProducts
):
    document = build_document(ROUTES, "https://api.example.com")
    assert "nameLength" in document["components"]["schemas"]["App"]["properties"]
    assert document["webhooks"]["app.created"]["post"]["requestBody"]["content"]["application/json"]["schema"][
        "properties"
    ]["data"] == {"$ref": "#/components/schemas/App"}
    await apps_products.until_known(tenant.product)
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["app.created"])
    body = {"name": "Seven", "slug": f"s-{secrets.token_hex(4)}"}
    status, answer = await tenant.call("POST", "/api/v1/apps", json=body)
    assert status == 201, answer
    assert answer["data"]["nameLength"] == 5
    status, answer = await tenant.call("GET", f"/api/v1/apps/{answer['data']['id']}")
    assert (status, answer["data"]["nameLength"]) == (200, 5)
    await receiver.deliveries(1)
    payload = receiver.verified(endpoint["secret"])  # checked against the grown schema, too
    assert (payload["type"], payload["data"]["nameLength"]) == ("app.created", 5)
