"""Route candidates a page at a time (`limit`, `cursor`: beyond the contract), and the whole list streamed."""

from __future__ import annotations

import base64
import json
from typing import Any

import aiohttp
import pytest

from services.apps.candidate_listing import READ_MAX
from services.apps.schemas import responses as schemas
from services.apps.schemas.values import CANDIDATES_PAGE_DEFAULT
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of
from tests.factories import AppsProducts, IdentityFactory

PATHS = ("/b", "/a/c", "/a", "/c", "/a-b", "/b/a", "/z", "/é", "/A", "/a/b/c", "/0")


def candidates_of(app: dict) -> str:
    return f"/api/v1/apps/{app['id']}/route-candidates"


def cursor(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


async def walk(tenant: Tenant, app: dict, limit: int, **params: str) -> list[dict]:
    """Every page of the list, `limit` at a time, from the first until nextCursor is null."""
    pages: list[dict] = []
    while not pages or pages[-1]["nextCursor"] is not None:
        after = {"cursor": pages[-1]["nextCursor"]} if pages else {}
        status, body = await tenant.get(candidates_of(app), limit=str(limit), **after, **params)
        assert status == 200, body
        assert_shape(schemas.RouteCandidates, body["data"])
        pages.append(body["data"])
    return pages


async def whole(tenant: Tenant, app: dict, **params: str) -> dict:
    status, body = await tenant.get(candidates_of(app), **params)
    assert status == 200, body
    return dict(body["data"])


@pytest.fixture
async def two_products(tenant: Tenant, identity: IdentityFactory, apps_products: AppsProducts) -> list[dict]:
    """The tenant's product and a second one, both resources of one app, with the same paths in each."""
    second = await identity.product(tenant.org, "Blog")
    await apps_products.until_known(second)
    return [tenant.product, second]


@pytest.mark.parametrize("include_routed", ["false", "true"])
async def test_pages_walked_by_cursor_are_the_whole_list_in_order(
    tenant: Tenant, content: FakeContent, two_products: list[dict], include_routed: str
):
    app = await tenant.create_app_of(*two_products)
    documents = [content.add(tenant.org, product, filePath=path) for product in two_products for path in PATHS]
    status, _ = await tenant.post(
        f"{routes_of(app)}/batch", {"routes": [route("/x", documents[3]), route("/y", documents[14])]}
    )
    full = await whole(tenant, app, includeRouted=include_routed)
    pages = await walk(tenant, app, 4, includeRouted=include_routed)
    walked = [candidate for page in pages for candidate in page["candidates"]]
    assert walked == full["candidates"]
    assert len(walked) == full["candidateCount"] == (22 if include_routed == "true" else 20)
    assert [len(page["candidates"]) for page in pages[:-1]] == [4] * (len(pages) - 1)
    assert {page["candidateCount"] for page in pages} == {full["candidateCount"]}
    # In path order (code points), then id: a path both products have comes twice, by id.
    assert [(c["suggestedPath"], c["targetId"]) for c in walked] == sorted(
        (c["suggestedPath"], c["targetId"]) for c in walked
    )


async def test_routes_made_between_pages_neither_repeat_nor_skip_a_candidate(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    documents = sorted(
        (content.add(tenant.org, tenant.product, filePath=f"/p{n:02}") for n in range(12)), key=lambda d: d["filePath"]
    )
    status, first = await tenant.get(candidates_of(app), limit="5")
    assert [c["targetId"] for c in first["data"]["candidates"]] == [d["id"] for d in documents[:5]]
    # One shown already, and two further on, are routed before the next pages are asked for.
    made = [route("/elsewhere", documents[1]), route("/later-1", documents[6]), route("/later-2", documents[7])]
    status, _ = await tenant.post(f"{routes_of(app)}/batch", {"routes": made})
    assert status == 200
    rest, after = [], first["data"]["nextCursor"]
    while after is not None:
        status, body = await tenant.get(candidates_of(app), limit="5", cursor=after)
        rest += body["data"]["candidates"]
        after = body["data"]["nextCursor"]
        assert body["data"]["candidateCount"] == 9
    assert [c["targetId"] for c in rest] == [d["id"] for d in documents[5:] if d not in (documents[6], documents[7])]
    status, body = await tenant.get(
        candidates_of(app), limit="5", cursor=first["data"]["nextCursor"], includeRouted="true"
    )
    shown = body["data"]["candidates"]
    assert [c["targetId"] for c in shown] == [d["id"] for d in documents[5:10]]
    assert [c["pathStatus"] for c in shown] == [
        "available",
        "already_routed",
        "already_routed",
        "available",
        "available",
    ]


async def test_a_page_is_full_however_many_documents_in_a_row_are_routed(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    documents = sorted(
        (content.add(tenant.org, tenant.product, filePath=f"/p{n:02}") for n in range(40)), key=lambda d: d["filePath"]
    )
    for start in (0, 30):  # the first 33 documents routed, in two batches
        batch = [route(f"/routed{n}", documents[n]) for n in range(start, min(start + 30, 33))]
        status, _ = await tenant.post(f"{routes_of(app)}/batch", {"routes": batch})
        assert status == 200
    status, body = await tenant.get(candidates_of(app), limit="5")
    assert [c["targetId"] for c in body["data"]["candidates"]] == [d["id"] for d in documents[33:38]]
    assert (body["data"]["candidateCount"], body["data"]["nextCursor"] is not None) == (7, True)
    status, body = await tenant.get(candidates_of(app), limit="5", cursor=body["data"]["nextCursor"])
    assert [c["targetId"] for c in body["data"]["candidates"]] == [d["id"] for d in documents[38:]]
    assert body["data"]["nextCursor"] is None


async def test_a_cursor_alone_pages_by_the_default_limit(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    for n in range(CANDIDATES_PAGE_DEFAULT + 1):
        content.add(tenant.org, tenant.product, filePath=f"/p{n:03}")
    status, first = await tenant.get(candidates_of(app), limit="1")
    status, body = await tenant.get(candidates_of(app), cursor=first["data"]["nextCursor"])
    assert (len(body["data"]["candidates"]), body["data"]["nextCursor"]) == (CANDIDATES_PAGE_DEFAULT, None)
    assert body["data"]["candidates"][0]["suggestedPath"] == "/p001"


async def test_without_limit_or_cursor_the_whole_list_is_the_contracts_shape(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    content.add(tenant.org, tenant.product, filePath="/a")
    response = await tenant.client.get(candidates_of(app), headers={"x-api-key": tenant.key})
    assert (response.status, response.headers["Transfer-Encoding"]) == (200, "chunked")  # streamed, not held whole
    data = (await response.json())["data"]
    assert set(data) == {"appId", "candidateCount", "candidates"}
    assert_shape(schemas.RouteCandidates, data)
    status, paged = await tenant.get(candidates_of(app), limit="10")
    assert paged["data"] == {**data, "nextCursor": None}


@pytest.mark.parametrize("include_routed", ["false", "true"])
async def test_a_list_longer_than_one_read_is_streamed_whole(tenant: Tenant, content: FakeContent, include_routed: str):
    app = await tenant.create_app_of()
    documents = [content.add(tenant.org, tenant.product, filePath=f"/p{n:05}") for n in range(READ_MAX * 2 + 50)]
    routed = [documents[n] for n in (0, READ_MAX - 1, READ_MAX, 2 * READ_MAX + 49)]
    status, _ = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route(f"/r{d['id']}", d) for d in routed]})
    data = await whole(tenant, app, includeRouted=include_routed)
    listed = documents if include_routed == "true" else [d for d in documents if d not in routed]
    assert [c["targetId"] for c in data["candidates"]] == [d["id"] for d in listed]
    assert data["candidateCount"] == len(listed)


async def test_content_failing_before_the_answer_is_an_error_and_after_it_breaks_the_answer_off(
    tenant: Tenant, content: FakeContent
):
    app = await tenant.create_app_of()
    for n in range(READ_MAX + 1):
        content.add(tenant.org, tenant.product, filePath=f"/p{n:05}")
    content.reads_before_failing = 0
    status, body = await tenant.get(candidates_of(app))
    assert (status, body["code"]) == (502, "BAD_GATEWAY")
    content.reads_before_failing = 1
    response = await tenant.client.get(candidates_of(app), headers={"x-api-key": tenant.key})
    assert response.status == 200
    with pytest.raises(aiohttp.ClientPayloadError):
        await response.read()


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"limit": "0"}, "limit", "Must be greater than or equal to 1 and less than or equal to 1000."),
        ({"limit": "1001"}, "limit", "Must be greater than or equal to 1 and less than or equal to 1000."),
        ({"limit": "ten"}, "limit", "Not a valid integer."),
        ({"cursor": "not a cursor!"}, "cursor", None),
        ({"cursor": base64.urlsafe_b64encode(b"{not json").decode()}, "cursor", None),
        ({"cursor": cursor(["/a", "not-an-id"])}, "cursor", None),
        ({"cursor": cursor(["/a"])}, "cursor", None),
        ({"cursor": cursor([1, "0d8e6ac7-3f4f-4f7b-9d8e-2c1c8a0b8f10"])}, "cursor", None),
        ({"cursor": cursor(["/a\u0000", "0d8e6ac7-3f4f-4f7b-9d8e-2c1c8a0b8f10"])}, "cursor", None),
        ({"cursor": cursor(["/" + "a" * 2048, "0d8e6ac7-3f4f-4f7b-9d8e-2c1c8a0b8f10"])}, "cursor", None),
    ],
    ids=["limit 0", "limit over", "limit text", "not base64", "not json", "id", "short", "path type", "nul", "long"],
)
async def test_a_bad_limit_or_cursor_is_refused(tenant: Tenant, params: dict, field: str, message: str | None):
    app = await tenant.create_app_of()
    status, body = await tenant.get(candidates_of(app), **params)
    assert (status, body["code"], list(body["details"])) == (422, "VALIDATION_FAILED", [field])
    assert body["details"][field] == (message or "Not a cursor of this list: send nextCursor as a page gave it.")
