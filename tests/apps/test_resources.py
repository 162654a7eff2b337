"""An app's resources: the organization's products, each once."""

from __future__ import annotations

import uuid

import pytest

from services.apps.schemas import responses as schemas
from tests.apps.support import Tenant, assert_shape
from tests.factories import AppsProducts, IdentityFactory


def resources_of(app: dict) -> str:
    return f"/api/v1/apps/{app['id']}/resources"


async def test_adding_a_product_answers_the_resource_and_stores_it(tenant: Tenant):
    app = await tenant.create_app()
    status, body = await tenant.post(resources_of(app), {"resourceId": tenant.product["id"], "resourceType": "product"})
    assert status == 201
    resource = body["data"]
    assert_shape(schemas.AppResource, resource)
    assert (resource["appId"], resource["resourceType"], resource["resourceId"]) == (
        app["id"],
        "product",
        tenant.product["id"],
    )
    status, stored = await tenant.get(f"/api/v1/apps/{app['id']}")
    assert stored["data"]["resources"] == [resource]


async def test_resource_type_defaults_to_product(tenant: Tenant):
    app = await tenant.create_app()
    status, body = await tenant.post(resources_of(app), {"resourceId": tenant.product["id"]})
    assert status == 201
    assert body["data"]["resourceType"] == "product"


async def test_the_first_product_becomes_the_configs_product(
    tenant: Tenant, identity: IdentityFactory, apps_products: AppsProducts
):
    app = await tenant.create_app()
    second = await identity.product(tenant.org, "Second")
    await apps_products.until_known(second)
    await tenant.post(resources_of(app), {"resourceId": tenant.product["id"]})
    await tenant.post(resources_of(app), {"resourceId": second["id"]})
    status, stored = await tenant.get(f"/api/v1/apps/{app['id']}")
    assert stored["data"]["appConfig"]["productId"] == tenant.product["id"]
    assert [r["resourceId"] for r in stored["data"]["resources"]] == [tenant.product["id"], second["id"]]


async def test_the_same_product_twice_is_a_conflict(tenant: Tenant):
    app = await tenant.create_app()
    await tenant.post(resources_of(app), {"resourceId": tenant.product["id"]})
    status, body = await tenant.post(resources_of(app), {"resourceId": tenant.product["id"]})
    assert status == 409
    assert body["code"] == "CONFLICT"
    status, listed = await tenant.get(resources_of(app))
    assert len(listed["data"]) == 1


async def test_the_same_product_may_be_a_resource_of_two_apps(tenant: Tenant):
    first, second = await tenant.create_app(slug="one"), await tenant.create_app(slug="two")
    for app in (first, second):
        status, _ = await tenant.post(resources_of(app), {"resourceId": tenant.product["id"]})
        assert status == 201


@pytest.mark.parametrize("product", ["another organization's", "unknown"])
async def test_a_product_not_of_the_organization_is_refused(tenant: Tenant, other_tenant: Tenant, product: str):
    app = await tenant.create_app()
    resource_id = other_tenant.product["id"] if product == "another organization's" else str(uuid.uuid4())
    status, body = await tenant.post(resources_of(app), {"resourceId": resource_id})
    assert status == 422
    assert body["details"] == {"resourceId": "No such product in this organization."}
    status, listed = await tenant.get(resources_of(app))
    assert listed["data"] == []


@pytest.mark.parametrize(
    "body", [{}, {"resourceId": "not-a-uuid"}, {"resourceId": 7}, {"resourceType": "domain"}, {"extra": True}]
)
async def test_malformed_resources_are_refused(tenant: Tenant, body: dict):
    app = await tenant.create_app()
    if body and "resourceId" not in body:
        body = {"resourceId": tenant.product["id"], **body}
    status, answer = await tenant.post(resources_of(app), body)
    assert status == 422
    assert answer["code"] == "VALIDATION_FAILED"
    status, listed = await tenant.get(resources_of(app))
    assert listed["data"] == []


async def test_resources_of_an_unknown_app_are_not_found(tenant: Tenant, other_tenant: Tenant):
    theirs = await other_tenant.create_app()
    status, body = await tenant.post(resources_of(theirs), {"resourceId": tenant.product["id"]})
    assert status == 404
    status, body = await tenant.get(resources_of(theirs))
    assert status == 404


async def test_list_embeds_each_products_name_and_slug(tenant: Tenant):
    app = await tenant.create_app()
    await tenant.post(resources_of(app), {"resourceId": tenant.product["id"]})
    status, body = await tenant.get(resources_of(app))
    assert status == 200
    assert_shape(schemas.AppResourceWithProduct, body["data"], many=True)
    assert [resource["product"] for resource in body["data"]] == [tenant.product]
