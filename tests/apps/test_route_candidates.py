"""Route candidates: the documents of an app's products with the path each would get and whether it is free."""

from __future__ import annotations

import pytest

from services.apps.schemas import responses as schemas
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of
from tests.factories import AppsProducts, IdentityFactory


def candidates_of(app: dict) -> str:
    return f"/api/v1/apps/{app['id']}/route-candidates"


async def test_published_documents_of_the_product_are_candidates(
    tenant: Tenant, other_tenant: Tenant, content: FakeContent
):
    app = await tenant.create_app_of()
    document = content.add(tenant.org, tenant.product, filePath="guides/intro")
    content.add(tenant.org, tenant.product, status="draft")
    content.add(other_tenant.org, other_tenant.product, filePath="guides/intro")
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"])
    assert status == 200
    assert_shape(schemas.RouteCandidates, body["data"])
    assert body["data"] == {
        "appId": app["id"],
        "candidateCount": 1,
        "candidates": [
            {
                "targetType": "product_document",
                "targetId": document["id"],
                "suggestedPath": "/guides/intro",
                "pathStatus": "available",
                "existingRoute": None,
                "pathConflict": None,
                "target": document,
                "product": tenant.product,
            }
        ],
    }


async def test_status_draft_lists_drafts(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    draft = content.add(tenant.org, tenant.product, status="draft")
    content.add(tenant.org, tenant.product)
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"], status="draft")
    assert [c["targetId"] for c in body["data"]["candidates"]] == [draft["id"]]


async def test_routed_documents_are_left_out_unless_asked_for(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    routed = content.add(tenant.org, tenant.product, filePath="a")
    free = content.add(tenant.org, tenant.product, filePath="b")
    status, made = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/elsewhere", routed)]})
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"])
    assert [c["targetId"] for c in body["data"]["candidates"]] == [free["id"]]
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"], includeRouted="true")
    assert body["data"]["candidateCount"] == 2
    first = body["data"]["candidates"][0]
    assert (first["targetId"], first["pathStatus"], first["existingRoute"]) == (
        routed["id"],
        "already_routed",
        {"id": made["data"]["routes"][0]["id"], "path": "/elsewhere"},
    )


async def test_a_suggested_path_taken_by_another_target_is_a_path_conflict(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    holder = content.add(tenant.org, tenant.product, status="draft")
    status, made = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/pricing", holder)]})
    document = content.add(tenant.org, tenant.product, filePath="/pricing/")
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"])
    candidate = body["data"]["candidates"][0]
    assert (candidate["targetId"], candidate["pathStatus"], candidate["existingRoute"]) == (
        document["id"],
        "path_conflict",
        None,
    )
    assert candidate["pathConflict"] == {
        "id": made["data"]["routes"][0]["id"],
        "path": "/pricing",
        "targetType": "product_document",
        "targetId": holder["id"],
    }


@pytest.mark.parametrize(
    ("file_path", "suggested"),
    [
        ("docs//intro/", "/docs/intro"),
        ("/docs/./a/../intro", "/docs/intro"),
        ("my docs/what?#now", "/my%20docs/what%3F%23now"),
        ("", "/"),
        (None, "/"),
    ],
)
async def test_suggested_paths_are_canonical_route_paths(
    tenant: Tenant, content: FakeContent, file_path, suggested: str
):
    app = await tenant.create_app_of()
    content.add(tenant.org, tenant.product, filePath=file_path)
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"])
    assert body["data"]["candidates"][0]["suggestedPath"] == suggested


async def test_a_path_too_long_for_a_route_is_an_invalid_path(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    content.add(tenant.org, tenant.product, filePath="a" * 2048)
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"])
    assert body["data"]["candidates"][0]["pathStatus"] == "invalid_path"


async def test_candidates_are_ordered_by_suggested_path(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    for path in ("c", "a", "b"):
        content.add(tenant.org, tenant.product, filePath=path)
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"])
    assert [c["suggestedPath"] for c in body["data"]["candidates"]] == ["/a", "/b", "/c"]


@pytest.mark.parametrize(
    "params",
    [{"productId": ""}, {"status": "archived"}, {"includeRouted": "yes"}, {"offset": "10"}],
    ids=["empty product", "status", "includeRouted", "unknown"],
)
async def test_invalid_queries_are_refused(tenant: Tenant, params: dict):
    app = await tenant.create_app_of()
    status, body = await tenant.get(candidates_of(app), **{"productId": tenant.product["id"], **params})
    assert status == 422
    assert body["code"] == "VALIDATION_FAILED"


async def test_without_a_product_the_candidates_of_every_product_of_the_app_are_listed(
    tenant: Tenant, identity: IdentityFactory, content: FakeContent, apps_products: AppsProducts
):
    second, outside = await identity.product(tenant.org, "Blog"), await identity.product(tenant.org, "Shop")
    await apps_products.until_known(second)
    app = await tenant.create_app_of(tenant.product, second)
    first_document = content.add(tenant.org, tenant.product, filePath="a")
    second_document = content.add(tenant.org, second, filePath="b")
    content.add(tenant.org, outside, filePath="c")
    status, body = await tenant.get(candidates_of(app))
    assert status == 200
    assert_shape(schemas.RouteCandidates, body["data"])
    assert body["data"]["candidateCount"] == 2
    assert [(c["targetId"], c["suggestedPath"], c["product"]) for c in body["data"]["candidates"]] == [
        (first_document["id"], "/a", tenant.product),
        (second_document["id"], "/b", second),
    ]
    status, body = await tenant.get(candidates_of(app), productId=second["id"])
    assert [c["targetId"] for c in body["data"]["candidates"]] == [second_document["id"]]


async def test_an_app_without_products_has_no_candidates(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    content.add(tenant.org, tenant.product)
    status, body = await tenant.get(candidates_of(app))
    assert (status, body["data"]) == (200, {"appId": app["id"], "candidateCount": 0, "candidates": []})


async def test_a_product_that_is_not_a_resource_of_the_app_is_not_found(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    content.add(tenant.org, tenant.product)
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"])
    assert (status, body["code"], body["message"]) == (404, "NOT_FOUND", "this product is not a resource of the app")


@pytest.mark.parametrize("params", [{}, {"status": "archived"}, {"productId": ""}, {"limit": "0"}])
async def test_another_organizations_app_is_not_found_before_the_query_is_checked(
    tenant: Tenant, other_tenant: Tenant, params: dict
):
    theirs = await other_tenant.create_app_of()
    status, body = await tenant.get(candidates_of(theirs), **params)
    assert (status, body["code"], body["message"]) == (404, "NOT_FOUND", "app not found")


async def test_another_organizations_product_is_not_found(tenant: Tenant, other_tenant: Tenant):
    app = await tenant.create_app_of()
    status, body = await tenant.get(candidates_of(app), productId=other_tenant.product["id"])
    assert (status, body["code"], body["message"]) == (404, "NOT_FOUND", "product not found")


async def test_another_organizations_app_is_not_found(tenant: Tenant, other_tenant: Tenant):
    theirs = await other_tenant.create_app()
    status, body = await tenant.get(candidates_of(theirs), productId=tenant.product["id"])
    assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_an_app_with_more_routes_than_documents_is_matched_by_path_and_target(
    tenant: Tenant, content: FakeContent
):
    """Fewer documents than routes: the routes are looked up by the documents' paths and ids."""
    app = await tenant.create_app_of()
    others = [content.add(tenant.org, tenant.product, status="draft") for _ in range(3)]
    routed = content.add(tenant.org, tenant.product, filePath="routed")
    conflicting = content.add(tenant.org, tenant.product, filePath="taken")
    items = [route(f"/other-{index}", document) for index, document in enumerate(others)]
    items += [route("/taken", others[0]), route("/elsewhere", routed)]
    status, made = await tenant.post(f"{routes_of(app)}/batch", {"routes": items})
    assert status == 200
    status, body = await tenant.get(candidates_of(app), productId=tenant.product["id"], includeRouted="true")
    by_target = {c["targetId"]: c for c in body["data"]["candidates"]}
    assert (by_target[routed["id"]]["pathStatus"], by_target[routed["id"]]["existingRoute"]["path"]) == (
        "already_routed",
        "/elsewhere",
    )
    assert (by_target[conflicting["id"]]["pathStatus"], by_target[conflicting["id"]]["pathConflict"]["path"]) == (
        "path_conflict",
        "/taken",
    )
