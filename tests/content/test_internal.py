"""The endpoints the apps and search services call (docs/architecture.md, "Internal contracts")."""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

import pytest

from tests.factories import ContentFactory, IdentityFactory


def target(document: dict) -> dict:
    return {
        "id": document["id"],
        "title": document["title"],
        "filePath": document["file_path"],
        "sourceUrl": document["source_url"],
        "status": document["status"],
        "type": document["type"],
        "redirectToUrl": document["redirect_to_url"],
        "productId": str(document["product_id"]),
    }


async def test_lookup_answers_the_callers_live_documents_as_targets(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org, other = await identity.organization(), await identity.organization()
    product, other_product = await identity.product(org), await identity.product(other)
    mine = await content.document(org, product, "guide", redirect_to_url="/elsewhere")
    gone = await content.document(org, product)
    await content.delete(org, product, gone["id"])
    theirs = await content.document(other, other_product)
    ids = [mine["id"], gone["id"], theirs["id"], str(uuid.uuid4())]
    status, body = await content_service.call("POST", "/internal/documents/lookup", org, {"ids": ids})
    assert status == 200
    assert body == {"documents": [target(mine)]}
    assert body["documents"][0]["filePath"] == "/guide"


async def test_lookup_refuses_malformed_and_too_many_ids(content_service, identity: IdentityFactory):
    org = await identity.organization()
    status, body = await content_service.call("POST", "/internal/documents/lookup", org, {"ids": ["nope"]})
    assert (status, body["details"]) == (422, {"ids.0": "Not a valid UUID."})
    too_many = [str(uuid.uuid4()) for _ in range(501)]
    status, body = await content_service.call("POST", "/internal/documents/lookup", org, {"ids": too_many})
    assert status == 422
    assert "ids" in body["details"]


def targets_of(*products: dict, **params: str) -> str:
    query = urlencode([*(("productId", product["id"]) for product in products), *params.items()])
    return f"/internal/targets?{query}"


async def test_targets_are_the_products_documents_of_a_status_published_by_default(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org = await identity.organization()
    product = await identity.product(org)
    draft = await content.document(org, product, "b-draft")
    published = await content.document(org, product, "a-published", status="published")
    status, body = await content_service.call("GET", targets_of(product), org)
    assert (status, body) == (200, {"documents": [target(published)]})
    status, body = await content_service.call("GET", targets_of(product, status="draft"), org)
    assert (status, body) == (200, {"documents": [target(draft)]})
    status, body = await content_service.call("GET", targets_of(product, status="archived"), org)
    assert status == 422


async def test_targets_come_in_path_then_id_order_page_after_page(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org = await identity.organization()
    first, second = await identity.product(org), await identity.product(org)
    made = [
        await content.document(org, product, slug, status="published")
        for product in (first, second)
        for slug in ("b", "a", "c/d", "c")
    ]
    gone = await content.document(org, first, "bb", status="published")
    await content.delete(org, first, gone["id"])
    expected = [target(document) for document in sorted(made, key=lambda d: (d["file_path"], d["id"]))]
    pages, after = [], {}
    while not pages or pages[-1]:
        status, body = await content_service.call("GET", targets_of(first, second, limit="3", **after), org)
        assert status == 200
        pages.append(body["documents"])
        if body["documents"]:
            after = {"afterPath": body["documents"][-1]["filePath"], "afterId": body["documents"][-1]["id"]}
    assert [len(page) for page in pages] == [3, 3, 2, 0]
    # /a, /a, /b, /b, /c, /c, /c/d, /c/d: equal paths of the two products in id order
    assert [document for page in pages for document in page] == expected


async def test_targets_of_another_organization_are_neither_listed_nor_counted(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org, other = await identity.organization(), await identity.organization()
    product = await identity.product(org)
    document = await content.document(org, product, status="published")
    status, body = await content_service.call("GET", targets_of(product), other)
    assert (status, body) == (200, {"documents": []})
    for ids in (None, [document["id"]]):
        count = {"productIds": [product["id"]], "status": "published", **({"ids": ids} if ids else {})}
        status, body = await content_service.call("POST", "/internal/targets/count", other, count)
        assert (status, body) == (200, {"count": 0})


async def test_targets_are_counted_in_all_or_among_given_ids(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org = await identity.organization()
    first, second = await identity.product(org), await identity.product(org)
    published = [await content.document(org, product, status="published") for product in (first, first, second)]
    draft = await content.document(org, first)
    gone = await content.document(org, first, status="published")
    await content.delete(org, first, gone["id"])
    both = [first["id"], second["id"]]

    async def count(product_ids: list[str], **fields) -> int:
        status, body = await content_service.call(
            "POST", "/internal/targets/count", org, {"productIds": product_ids, "status": "published", **fields}
        )
        assert status == 200, body
        return int(body["count"])

    assert await count(both) == 3
    assert await count([first["id"]]) == 2
    assert await count(both, status="draft") == 1
    among = [published[0]["id"], published[2]["id"], draft["id"], gone["id"], str(uuid.uuid4())]
    assert await count(both, ids=among) == 2
    assert await count([first["id"]], ids=among) == 1
    assert await count(both, ids=[]) == 0


@pytest.mark.parametrize(
    "params",
    [{"afterPath": "/a"}, {"afterId": str(uuid.uuid4())}, {"limit": "1001"}, {"limit": "0"}, {"afterId": "x"}],
    ids=["path alone", "id alone", "limit over", "limit under", "id"],
)
async def test_targets_refuse_a_malformed_page(content_service, identity: IdentityFactory, params: dict):
    org = await identity.organization()
    product = await identity.product(org)
    status, body = await content_service.call("GET", targets_of(product, **params), org)
    assert (status, body["code"]) == (422, "VALIDATION_FAILED")
    status, body = await content_service.call("GET", "/internal/targets", org)
    assert (status, body["details"]) == (422, {"productId": "Missing data for required field."})


async def test_full_document_includes_deleted_ones(content_service, identity: IdentityFactory, content: ContentFactory):
    org = await identity.organization()
    product = await identity.product(org)
    document = await content.document(org, product, "about", content="# About", tags=["a", "b"])
    status, body = await content_service.call("GET", f"/internal/documents/{document['id']}", org)
    assert status == 200
    assert body["id"] == document["id"]
    assert body["brandId"] == product["id"]
    assert (body["filePath"], body["content"], body["tags"]) == ("/about", "# About", ["a", "b"])
    assert body["deletedAt"] is None
    await content.delete(org, product, document["id"])
    status, body = await content_service.call("GET", f"/internal/documents/{document['id']}", org)
    assert status == 200
    assert body["deletedAt"] is not None


async def test_full_document_of_another_organization_is_404(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org, other = await identity.organization(), await identity.organization()
    document = await content.document(org, await identity.product(org))
    for caller, document_id in ((other, document["id"]), (org, str(uuid.uuid4())), (org, "not-an-id")):
        status, body = await content_service.call("GET", f"/internal/documents/{document_id}", caller)
        assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_organization_documents_come_in_id_order_page_by_page(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org = await identity.organization()
    product = await identity.product(org)
    made = [await content.document(org, product) for _ in range(5)]
    gone = await content.document(org, product)
    await content.delete(org, product, gone["id"])
    seen, after = [], None
    for _ in range(3):
        path = f"/internal/organizations/{org.id}/documents?limit=2" + (f"&after={after}" if after else "")
        status, body = await content_service.call("GET", path, org)
        assert status == 200
        seen += [document["id"] for document in body["documents"]]
        after = body["next"]
    assert seen == sorted(document["id"] for document in made)
    assert after is None
    assert body["documents"][0]["brandId"] == product["id"]


async def test_organization_documents_of_another_organization_are_404(content_service, identity: IdentityFactory):
    org, other = await identity.organization(), await identity.organization()
    status, body = await content_service.call("GET", f"/internal/organizations/{other.id}/documents", org)
    assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_organization_documents_limit_is_at_most_500(content_service, identity: IdentityFactory):
    org = await identity.organization()
    status, body = await content_service.call("GET", f"/internal/organizations/{org.id}/documents?limit=501", org)
    assert (status, body["code"]) == (422, "VALIDATION_FAILED")


async def test_indexed_time_is_recorded_and_never_goes_back(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org = await identity.organization()
    document = await content.document(org, await identity.product(org))
    path = f"/internal/documents/{document['id']}/indexed"
    status, body = await content_service.call("POST", path, org, {"lastIndexedAt": "2026-11-02T10:00:00+00:00"})
    assert (status, body) == (200, {"id": document["id"], "lastIndexedAt": "2026-11-02T10:00:00+00:00"})
    status, body = await content_service.call("POST", path, org, {"lastIndexedAt": "2026-11-01T10:00:00Z"})
    assert (status, body["lastIndexedAt"]) == (200, "2026-11-02T10:00:00+00:00")
    status, body = await content_service.call("GET", f"/internal/documents/{document['id']}", org)
    assert body["lastIndexedAt"] == "2026-11-02T10:00:00+00:00"


async def test_indexed_time_needs_a_zone_and_a_document_of_the_caller(
    content_service, identity: IdentityFactory, content: ContentFactory
):
    org, other = await identity.organization(), await identity.organization()
    document = await content.document(org, await identity.product(org))
    path = f"/internal/documents/{document['id']}/indexed"
    status, _ = await content_service.call("POST", path, org, {"lastIndexedAt": "2026-11-02T10:00:00"})
    assert status == 422
    status, body = await content_service.call("POST", path, other, {"lastIndexedAt": "2026-11-02T10:00:00Z"})
    assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_target_counts_refuse_malformed_ids(content_service, identity: IdentityFactory):
    org = await identity.organization()
    product = await identity.product(org)
    body = {"productIds": [product["id"]], "ids": [product["id"], "nope"]}
    status, answer = await content_service.call("POST", "/internal/targets/count", org, body)
    assert (status, answer["details"]) == (422, {"ids.1": "Not a valid UUID."})
    too_many = {"productIds": [product["id"]], "ids": [product["id"]] * 10_001}
    status, answer = await content_service.call("POST", "/internal/targets/count", org, too_many)
    assert (status, list(answer["details"])) == (422, ["ids"])
