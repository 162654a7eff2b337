"""Pages of route candidates over real content documents: gateway, apps and content services together."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import AppsProducts, ContentFactory, IdentityFactory
from tests.integration.support import call, item, new_app_of

SLUGS = ("guides/setup", "blog/launch", "a", "guides", "docs/api/keys", "z-last", "docs/api", "b", "blog")


async def pages_of(gateway, headers: dict[str, str], app: dict[str, Any], limit: int, **params: str) -> list[dict]:
    """Every page of the app's candidates, `limit` at a time."""
    pages: list[dict] = []
    while not pages or pages[-1]["nextCursor"] is not None:
        after = {"cursor": pages[-1]["nextCursor"]} if pages else {}
        status, body = await call(
            gateway,
            "GET",
            f"/api/v1/apps/{app['id']}/route-candidates",
            headers,
            params={"limit": str(limit), **after, **params},
        )
        assert status == 200, body
        pages.append(body["data"])
    return pages


@pytest.mark.parametrize("include_routed", ["false", "true"])
async def test_pages_of_two_products_are_the_streamed_list_cut_in_order(
    gateway,
    tenant,
    identity: IdentityFactory,
    content: ContentFactory,
    apps_products: AppsProducts,
    include_routed: str,
):
    org, product, headers = tenant
    second = await identity.product(org, "Blog")
    await apps_products.until_known(second)
    documents = [
        await content.document(org, owner, slug, status="published") for owner in (product, second) for slug in SLUGS
    ]
    await content.document(org, product, "drafts/one")  # another status
    gone = await content.document(org, product, "gone", status="published")
    await content.delete(org, product, gone["id"])
    app = await new_app_of(gateway, headers, product)
    status, _ = await call(
        gateway, "POST", f"/api/v1/apps/{app['id']}/resources", headers, json={"resourceId": second["id"]}
    )
    routed = [documents[1], documents[12]]
    status, _ = await call(
        gateway,
        "POST",
        f"/api/v1/apps/{app['id']}/routes/batch",
        headers,
        json={"routes": [item(f"/r/{n}", d) for n, d in enumerate(routed)]},
    )
    assert status == 200
    status, whole = await call(
        gateway, "GET", f"/api/v1/apps/{app['id']}/route-candidates", headers, params={"includeRouted": include_routed}
    )
    assert set(whole["data"]) == {"appId", "candidateCount", "candidates"}
    listed = documents if include_routed == "true" else [d for d in documents if d not in routed]
    expected = sorted(listed, key=lambda d: (d["file_path"], d["id"]))
    assert [c["targetId"] for c in whole["data"]["candidates"]] == [d["id"] for d in expected]
    assert whole["data"]["candidateCount"] == len(expected)
    pages = await pages_of(gateway, headers, app, 4, includeRouted=include_routed)
    assert [c for page in pages for c in page["candidates"]] == whole["data"]["candidates"]
    assert {page["candidateCount"] for page in pages} == {len(expected)}


async def test_documents_routed_or_added_between_pages_are_neither_repeated_nor_skipped(
    gateway, tenant, content: ContentFactory
):
    org, product, headers = tenant
    documents = sorted(
        [await content.document(org, product, f"p{n:02}", status="published") for n in range(10)],
        key=lambda d: d["file_path"],
    )
    app = await new_app_of(gateway, headers, product)
    candidates = f"/api/v1/apps/{app['id']}/route-candidates"
    status, body = await call(gateway, "GET", candidates, headers, params={"limit": "4", "productId": product["id"]})
    first = body["data"]
    assert [c["targetId"] for c in first["candidates"]] == [d["id"] for d in documents[:4]]
    routes = {"routes": [item("/elsewhere", documents[0]), item("/later", documents[5])]}
    status, _ = await call(gateway, "POST", f"/api/v1/apps/{app['id']}/routes/batch", headers, json=routes)
    before = await content.document(org, product, "a-new-first", status="published")  # before the cursor
    after = await content.document(org, product, "p04b", status="published")  # after it
    rest, cursor = [], first["nextCursor"]
    while cursor is not None:
        status, body = await call(
            gateway, "GET", candidates, headers, params={"limit": "4", "cursor": cursor, "productId": product["id"]}
        )
        rest += body["data"]["candidates"]
        cursor = body["data"]["nextCursor"]
        assert body["data"]["candidateCount"] == 10  # 12 documents, 2 routed
    assert [c["targetId"] for c in rest] == [documents[4]["id"], after["id"], *(d["id"] for d in documents[6:])]
    assert before["id"] not in {c["targetId"] for c in rest}


async def test_a_page_counts_the_routes_and_documents_as_they_are_now(gateway, tenant, content: ContentFactory):
    """The routed count a page subtracts is kept between reads: every route created, moved to
    another document or deleted, and every routed document deleted, shows in the next page's count."""
    org, product, headers = tenant
    documents = [await content.document(org, product, f"p{n}", status="published") for n in range(6)]
    app = await new_app_of(gateway, headers, product)

    async def count() -> int:
        status, body = await call(
            gateway,
            "GET",
            f"/api/v1/apps/{app['id']}/route-candidates",
            headers,
            params={"limit": "2", "productId": product["id"]},
        )
        assert status == 200, body
        assert len(body["data"]["candidates"]) == 2
        return int(body["data"]["candidateCount"])

    assert await count() == 6
    status, body = await call(
        gateway,
        "POST",
        f"/api/v1/apps/{app['id']}/routes/batch",
        headers,
        json={"routes": [item("/one", documents[0]), item("/two", documents[1])]},
    )
    assert status == 200, body
    first, second = body["data"]["routes"]
    assert await count() == 4
    assert await count() == 4  # read again: the same routes, the same count
    status, body = await call(
        gateway,
        "POST",
        f"/api/v1/apps/{app['id']}/routes/batch",
        headers,
        json={"routes": [item("/three", documents[2])]},
    )
    assert status == 200, body
    assert await count() == 3
    status, body = await call(gateway, "DELETE", f"/api/v1/apps/{app['id']}/routes/{first['id']}", headers)
    assert status == 200, body
    assert await count() == 4
    # Moved to a document already routed: one routed document fewer, the route count the same.
    status, body = await call(
        gateway,
        "PATCH",
        f"/api/v1/apps/{app['id']}/routes/{second['id']}",
        headers,
        json={"targetId": documents[2]["id"], "targetType": "product_document"},
    )
    assert status == 200, body
    assert await count() == 5
    # A routed document deleted: one candidate fewer to count and one routed fewer to subtract.
    await content.delete(org, product, documents[2]["id"])
    assert await count() == 5
    await content.delete(org, product, documents[3]["id"])
    assert await count() == 4
