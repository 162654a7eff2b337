"""Apps routes over real content documents: gateway, apps and content services together.

The apps suite stands in for the content service with a fake of its internal API; these tests
show the two real services agree on that contract.
"""

from __future__ import annotations

from typing import Any

import aiohttp

from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.internal_token import HEADER, Caller, Organization, Product, mint
from tests.factories import AppsProducts, ContentFactory, IdentityFactory, Org
from tests.integration.support import call, item, new_app, new_app_of


async def test_published_documents_become_candidates_with_their_real_targets(gateway, tenant, content: ContentFactory):
    org, product, headers = tenant
    guide = await content.document(org, product, "guides/intro", title="Intro", status="published")
    await content.document(org, product, "drafts/later", status="draft")
    app = await new_app_of(gateway, headers, product)
    status, body = await call(
        gateway, "GET", f"/api/v1/apps/{app['id']}/route-candidates", headers, params={"productId": product["id"]}
    )
    assert status == 200, body
    [candidate] = body["data"]["candidates"]
    assert candidate["targetId"] == guide["id"]
    assert candidate["suggestedPath"] == guide["file_path"]
    assert candidate["pathStatus"] == "available"
    assert candidate["product"] == product
    assert candidate["target"] == {
        "id": guide["id"],
        "title": "Intro",
        "filePath": guide["file_path"],
        "sourceUrl": guide["source_url"],
        "status": "published",
        "type": guide["type"],
        "redirectToUrl": None,
        "productId": product["id"],
    }


async def test_a_batch_routes_real_documents_and_candidates_see_it(gateway, tenant, content: ContentFactory):
    org, product, headers = tenant
    first = await content.document(org, product, "a", status="published")
    second = await content.document(org, product, "b", status="published")
    app = await new_app_of(gateway, headers, product)
    routes = f"/api/v1/apps/{app['id']}/routes"
    status, preview = await call(
        gateway,
        "POST",
        f"{routes}/import-preview",
        headers,
        json={"routes": [item("/first", first), item("/second", second)]},
    )
    assert (status, preview["data"]["valid"], preview["data"]["createCount"]) == (200, True, 2)
    status, made = await call(
        gateway, "POST", f"{routes}/batch", headers, json={"routes": [item("/first", first), item("/second", second)]}
    )
    assert (status, made["data"]["createdCount"]) == (200, 2)
    assert {route["target"]["id"] for route in made["data"]["routes"]} == {first["id"], second["id"]}
    status, body = await call(
        gateway,
        "GET",
        f"/api/v1/apps/{app['id']}/route-candidates",
        headers,
        params={"productId": product["id"], "includeRouted": "true"},
    )
    assert {c["pathStatus"] for c in body["data"]["candidates"]} == {"already_routed"}


async def test_another_organizations_document_is_never_a_target(
    gateway, tenant, identity: IdentityFactory, content: ContentFactory
):
    org, product, headers = tenant
    other = await identity.organization()
    theirs = await content.document(other, await identity.product(other), "secret", status="published")
    app = await new_app(gateway, headers)
    routes = f"/api/v1/apps/{app['id']}/routes"
    status, preview = await call(
        gateway, "POST", f"{routes}/import-preview", headers, json={"routes": [item("/x", theirs)]}
    )
    entry = preview["data"]["routes"][0]
    assert (entry["action"], entry["issues"], entry["target"]) == ("conflict", ["target_not_found"], None)
    status, refused = await call(gateway, "POST", f"{routes}/batch", headers, json={"routes": [item("/x", theirs)]})
    assert status == 409
    assert refused["details"] == preview["data"]
    mine = await content.document(org, product, "mine", status="published")
    status, made = await call(gateway, "POST", f"{routes}/batch", headers, json={"routes": [item("/mine", mine)]})
    route_id = made["data"]["routes"][0]["id"]
    status, body = await call(gateway, "PATCH", f"{routes}/{route_id}", headers, json={"targetId": theirs["id"]})
    assert (status, body["details"]) == (422, {"targetId": "No such document in this organization."})


async def test_a_deleted_document_leaves_the_candidates(gateway, tenant, content: ContentFactory):
    org, product, headers = tenant
    kept = await content.document(org, product, "kept", status="published")
    gone = await content.document(org, product, "gone", status="published")
    await content.delete(org, product, gone["id"])
    app = await new_app_of(gateway, headers, product)
    status, body = await call(
        gateway, "GET", f"/api/v1/apps/{app['id']}/route-candidates", headers, params={"productId": product["id"]}
    )
    assert [c["targetId"] for c in body["data"]["candidates"]] == [kept["id"]]


async def test_without_a_product_the_candidates_of_every_product_of_the_app_are_listed(
    gateway, tenant, identity: IdentityFactory, content: ContentFactory, apps_products: AppsProducts
):
    org, product, headers = tenant
    other_product = await identity.product(org, "Blog")
    await apps_products.until_known(other_product)
    mine = await content.document(org, product, "guides/intro", status="published")
    other = await content.document(org, other_product, "posts/launch", status="published")
    app = await new_app_of(gateway, headers, product)
    status, body = await call(gateway, "GET", f"/api/v1/apps/{app['id']}/route-candidates", headers)
    assert (status, [c["targetId"] for c in body["data"]["candidates"]]) == (200, [mine["id"]])
    await call(
        gateway, "POST", f"/api/v1/apps/{app['id']}/resources", headers, json={"resourceId": other_product["id"]}
    )
    status, body = await call(gateway, "GET", f"/api/v1/apps/{app['id']}/route-candidates", headers)
    assert status == 200
    assert [(c["targetId"], c["product"]) for c in body["data"]["candidates"]] == [
        (mine["id"], product),
        (other["id"], other_product),
    ]


async def test_a_product_outside_the_app_or_the_organization_is_not_found(gateway, tenant, identity: IdentityFactory):
    org, product, headers = tenant
    app = await new_app(gateway, headers)
    candidates = f"/api/v1/apps/{app['id']}/route-candidates"
    status, body = await call(gateway, "GET", candidates, headers, params={"productId": product["id"]})
    assert (status, body["message"]) == (404, "this product is not a resource of the app")
    theirs = await identity.product(await identity.organization())
    status, body = await call(gateway, "GET", candidates, headers, params={"productId": theirs["id"]})
    assert (status, body["message"]) == (404, "product not found")


async def call_apps_service(stack, org: Org, path: str, product: dict[str, Any] | None = None) -> tuple[int, dict]:
    """The apps service itself, with an internal token naming `product` as the gateway-checked one (or none)."""
    named = None if product is None else Product(product["id"], product["name"], product["slug"])
    caller = Caller("api_key", "key", Organization(org.id, org.slug, org.name), ALL_SCOPES, product=named)
    headers = {HEADER: mint(stack.environ["INTERNAL_TOKEN_SECRET"], caller)}
    async with (
        aiohttp.ClientSession() as session,
        session.get(stack.servers["apps"].make_url(path), headers=headers) as response,
    ):
        return response.status, await response.json()


async def test_the_service_lists_a_product_only_when_the_token_names_it(
    gateway, stack, tenant, content: ContentFactory
):
    org, product, headers = tenant
    document = await content.document(org, product, "guides/intro", status="published")
    app = await new_app_of(gateway, headers, product)
    path = f"/api/v1/apps/{app['id']}/route-candidates"
    status, body = await call_apps_service(stack, org, f"{path}?productId={product['id']}")
    assert (status, body["message"]) == (404, "product not found")
    status, body = await call_apps_service(stack, org, f"{path}?productId={product['id']}", product)
    assert (status, [c["targetId"] for c in body["candidates"]]) == (200, [document["id"]])
    status, body = await call_apps_service(stack, org, path)
    assert (status, [c["product"] for c in body["candidates"]]) == (200, [product])
