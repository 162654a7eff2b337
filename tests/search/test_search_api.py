"""POST /api/v1/content/search/{orgId} through the gateway: contract, ranking, filters, freshness, tenancy.

Documents are written through the content service (its write path, outbox and relay), and the
`indexing` fixture indexes them from the event stream as the search service does.
"""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from libs.common.internal_token import HEADER, Caller, Organization, mint
from libs.contract.parts import SEARCH
from services.search.schemas import MAX_RESULTS
from tests.conftest import build_app
from tests.factories import ContentFactory, IdentityFactory, eventually
from tests.search.conftest import Searcher

pytestmark = pytest.mark.usefixtures("indexing")

FRESHNESS_SECONDS = 2.0
# How long a test waits for a document to be indexed before it goes on: an upper bound for a
# machine running the whole suite, not the freshness promised (FRESHNESS_SECONDS, measured alone).
INDEXED_WITHIN = 30.0

LONG_GUIDE = "\n\n".join(
    [
        "Our warehouse ships every order from Rotterdam. Parcels leave the dock each weekday afternoon.",
        *[f"Section {n}. Packing notes about cardboard boxes, tape and labels for crate {n}. " * 12 for n in range(6)],
        "Frozen goods travel in insulated containers with dry ice so they arrive still cold.",
    ]
)


async def published(factory: ContentFactory, searcher: Searcher, product: dict[str, Any], **columns: Any) -> dict:
    return await factory.document(searcher.org, product, status="published", **columns)


async def wait_for(searcher: Searcher, query: str, document_id: str, present: bool = True, **options: Any) -> float:
    async def check() -> bool:
        return (document_id in await searcher.ids(query, **options)) is present

    return await eventually(check, within=INDEXED_WITHIN)


async def test_an_empty_organization_answers_the_exact_shape(tenant):
    searcher, _ = tenant
    data = await searcher.search("anything at all")
    assert data == {
        "ids": [[]],
        "distances": [[]],
        "metadatas": [[]],
        "embeddings": None,
        "documents": [[]],
        "uris": [[]],
        "data": None,
        "included": ["documents", "metadatas", "distances", "uris"],
    }


async def test_a_published_document_is_found_with_its_metadata(tenant, content: ContentFactory):
    searcher, product = tenant
    doc = await published(
        content,
        searcher,
        product,
        title="Returning an item",
        content="You can send any product back within thirty days for a full refund.",
    )
    await content.document(searcher.org, product, title="Draft notes", content="Refunds are coming.")
    await wait_for(searcher, "money back on a purchase", doc["id"])
    data = await searcher.search("money back on a purchase")
    assert data["ids"] == [[doc["id"]]]  # the draft is left out unless asked for
    [[distance]] = data["distances"]
    assert 0.0 <= distance < 0.8
    [[metadata]] = data["metadatas"]
    assert metadata == {
        "documentId": doc["id"],
        "title": "Returning an item",
        "filePath": doc["file_path"],
        "sourceUrl": doc["source_url"],
        "status": "published",
        "type": doc["type"],
        "productId": product["id"],
        "chunkIndex": 0,
        "indexedAt": metadata["indexedAt"],
    }
    assert data["documents"] == [["You can send any product back within thirty days for a full refund."]]
    assert data["uris"] == [[doc["source_url"] or doc["file_path"]]]
    assert (data["embeddings"], data["data"]) == (None, None)
    # The content service learnt when the document was indexed.
    response = await searcher.gateway.get(f"/api/v1/content/{doc['id']}", headers=searcher.headers)
    assert (await response.json())["data"]["lastIndexedAt"] is not None


async def test_include_chooses_the_lists_and_embeddings_are_unit_vectors(tenant, content: ContentFactory):
    searcher, product = tenant
    doc = await published(content, searcher, product, title="Opening hours", content="We open at nine.")
    await wait_for(searcher, "opening hours", doc["id"])
    data = await searcher.search("opening hours", include=["embeddings", "distances"])
    assert data["included"] == ["embeddings", "distances"]
    assert (data["documents"], data["metadatas"], data["uris"]) == ([[]], [[]], [[]])
    [[vector]] = data["embeddings"]
    assert len(vector) == 384
    assert abs(sum(x * x for x in vector) - 1.0) < 1e-4
    [[distance]] = data["distances"]
    query_vector_distance = distance
    assert 0.0 <= query_vector_distance < 1.0


async def test_a_long_document_is_one_result_by_its_best_chunk(tenant, content: ContentFactory):
    searcher, product = tenant
    doc = await published(content, searcher, product, title="Shipping handbook", content=LONG_GUIDE)
    await wait_for(searcher, "dry ice", doc["id"])
    data = await searcher.search("keeping frozen food cold in transit")
    assert data["ids"] == [[doc["id"]]]
    [[metadata]] = data["metadatas"]
    assert metadata["chunkIndex"] > 0
    assert "dry ice" in data["documents"][0][0]


async def test_filters_apply_before_ranking(tenant, content: ContentFactory, identity: IdentityFactory):
    searcher, product = tenant
    other = await identity.product(searcher.org, "Other")
    for n in range(8):
        await published(content, searcher, product, title=f"Espresso recipe {n}", content=f"Espresso shot number {n}.")
    wanted = [
        await published(content, searcher, other, title=f"Bicycle chain {n}", content=f"Oil the chain, step {n}.")
        for n in range(3)
    ]
    draft = await content.document(searcher.org, other, title="Espresso draft", content="An espresso draft.")
    await wait_for(searcher, "espresso", draft["id"], where={"status": "draft"})
    await wait_for(searcher, "bicycle chain", wanted[-1]["id"])
    # Espresso matches better, but only the other product's documents may come back: all three.
    ids = await searcher.ids("espresso", nResults=3, where={"productId": other["id"]})
    assert sorted(ids) == sorted(doc["id"] for doc in wanted)
    assert await searcher.ids("espresso", where={"productId": other["id"], "status": "draft"}) == [draft["id"]]
    assert len(await searcher.ids("espresso", nResults=5)) == 5
    assert await searcher.ids("espresso", where={"type": "no-such-type"}) == []


async def test_an_update_is_searchable_within_two_seconds(tenant, content: ContentFactory):
    searcher, product = tenant
    doc = await published(content, searcher, product, title="Team calendar", content="Meetings are on Mondays.")
    other = await published(content, searcher, product, title="Lunch menu", content="Soup is served at noon.")
    await wait_for(searcher, "meetings", doc["id"])
    await wait_for(searcher, "soup", other["id"])
    new_text = "Guided hikes to the crater rim leave at dawn."
    response = await searcher.gateway.put(
        f"/api/v1/content/{doc['id']}", headers=searcher.headers, json={"title": "Volcano tours", "content": new_text}
    )
    assert response.status == 200

    async def updated() -> bool:
        data = await searcher.search("crater hike", nResults=1)
        return data["ids"] == [[doc["id"]]] and data["documents"] == [[new_text]]

    assert await eventually(updated) < FRESHNESS_SECONDS
    data = await searcher.search("crater hike")
    assert data["ids"] == [[doc["id"], other["id"]]]
    assert data["metadatas"][0][0]["title"] == "Volcano tours"


async def test_deleted_and_unpublished_documents_leave_the_results(tenant, content: ContentFactory):
    searcher, product = tenant
    gone = await published(content, searcher, product, title="Parking", content="Park behind the building.")
    hidden = await published(content, searcher, product, title="Parking permits", content="Permits cost ten euros.")
    await wait_for(searcher, "parking", hidden["id"])
    await wait_for(searcher, "parking", gone["id"])
    response = await searcher.gateway.delete(
        "/api/v1/site/pages", headers=searcher.headers, json={"productId": product["id"], "pageIds": [gone["id"]]}
    )
    assert response.status == 200
    response = await searcher.gateway.patch(
        "/api/v1/site/pages",
        headers=searcher.headers,
        json={"productId": product["id"], "pages": [{"id": hidden["id"], "status": "draft"}]},
    )
    assert response.status == 200
    assert await wait_for(searcher, "parking", gone["id"], present=False) < FRESHNESS_SECONDS
    assert await wait_for(searcher, "parking", hidden["id"], present=False) < FRESHNESS_SECONDS
    assert await searcher.ids("parking", where={"status": "draft"}) == [hidden["id"]]


async def test_one_organization_never_sees_another_ones_documents(tenant, content: ContentFactory, identity):
    searcher, product = tenant
    other_org = await identity.organization()
    other = Searcher(searcher.gateway, other_org, {"x-api-key": await identity.api_key(other_org)})
    text = {"title": "Secret roadmap", "content": "The launch of the moon base is planned for spring."}
    mine = await published(content, searcher, product, **text)
    theirs = await content.document(other_org, await identity.product(other_org), status="published", **text)
    await wait_for(searcher, "moon base launch", mine["id"])
    await wait_for(other, "moon base launch", theirs["id"])
    assert await searcher.ids("moon base launch") == [mine["id"]]
    assert await other.ids("moon base launch") == [theirs["id"]]
    # Another organization's id in the path is not found, whatever the body.
    status, body = await searcher.raw({"query": "moon base"}, org_id=other_org.id)
    assert (status, body["ok"], body["code"]) == (404, False, "NOT_FOUND")


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": 42}, "query"),
        ({"query": "x", "nResults": 0}, "nResults"),
        ({"query": "x", "nResults": MAX_RESULTS + 1}, "nResults"),
        ({"query": "x", "nResults": "5"}, "nResults"),
        ({"query": "x", "where": {"status": "deleted"}}, "where.status"),
        ({"query": "x", "where": {"productId": "not-a-uuid"}}, "where.productId"),
        ({"query": "x", "include": ["everything"]}, "include.0"),
        ({"query": "x", "limit": 3}, "limit"),
    ],
)
async def test_bad_bodies_are_422_naming_the_field(tenant, body, field):
    searcher, _ = tenant
    status, answer = await searcher.raw(body)
    assert (status, answer["ok"], answer["code"]) == (422, False, "VALIDATION_FAILED")
    assert field in answer["details"]


async def test_a_cold_replica_loads_its_vectors_from_the_database(stack, tenant, content: ContentFactory):
    searcher, product = tenant
    doc = await published(content, searcher, product, title="Gift cards", content="Gift cards never expire.")
    await wait_for(searcher, "gift card", doc["id"])
    # A second search replica, started now, holds nothing in memory yet.
    async with TestClient(TestServer(build_app(SEARCH, stack.part_environ(SEARCH)))) as replica:
        caller = Caller("api_key", "key", Organization(searcher.org.id, "org", "Org"), frozenset({"content:read"}))
        response = await replica.post(
            f"/api/v1/content/search/{searcher.org.id}",
            json={"query": "gift card"},
            headers={HEADER: mint(stack.environ["INTERNAL_TOKEN_SECRET"], caller)},
        )
        assert response.status == 200
        assert (await response.json())["ids"] == [[doc["id"]]]
