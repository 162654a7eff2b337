"""POST /api/v1/site/pages (deprecated): bulk creation, each item on its own."""

from __future__ import annotations

import uuid

import pytest

from tests.content.api import Tenant
from tests.factories import DomainFactory


def page(slug: str, **fields) -> dict:
    return {"slug": slug, "title": f"Title of {slug}", **fields}


async def test_a_page_is_created_as_a_draft_and_stored(tenant: Tenant):
    answer = await tenant.create_pages(page("blog/launch-day", content="# Launch", description="d", metaTitle="m"))
    assert answer.status == 200
    created = answer.data["created"][0]
    assert answer.data == {
        "scope": tenant.scope,
        "createdCount": 1,
        "failedCount": 0,
        "created": [
            {
                "id": created["id"],
                "slug": "blog/launch-day",
                "title": "Title of blog/launch-day",
                "sourceUrl": None,
                "status": "draft",
                "domains": [],
            }
        ],
        "failed": [],
    }
    stored = (await tenant.document(created["id"])).data
    assert (stored["filePath"], stored["content"], stored["description"]) == ("/blog/launch-day", "# Launch", "d")
    assert (stored["metaTitle"], stored["isManual"], stored["type"], stored["publishedAt"]) == ("m", True, "page", None)
    assert stored["brandId"] == tenant.product["id"]


async def test_an_item_may_ask_to_be_published(tenant: Tenant):
    created = await tenant.create_page("pricing", status="published")
    assert created["status"] == "published"
    stored = (await tenant.document(created["id"])).data
    assert stored["status"] == "published"
    assert stored["publishedAt"] is not None


@pytest.mark.parametrize("count", [1, 25])
async def test_one_to_twenty_five_pages_are_accepted(tenant: Tenant, count: int):
    answer = await tenant.create_pages(*(page(f"page-{index}") for index in range(count)))
    assert answer.status == 200
    assert answer.data["createdCount"] == count
    assert [item["slug"] for item in answer.data["created"]] == [f"page-{index}" for index in range(count)]


@pytest.mark.parametrize("count", [0, 26])
async def test_zero_or_twenty_six_pages_are_refused_whole(tenant: Tenant, count: int):
    answer = await tenant.create_pages(*(page(f"page-{index}") for index in range(count)))
    assert answer.status == 422
    assert answer.body["code"] == "VALIDATION_FAILED"
    assert "pages" in answer.body["details"]
    assert (await tenant.list_pages()).data["total"] == 0


async def test_a_taken_path_fails_only_its_item(tenant: Tenant):
    await tenant.create_page("taken")
    answer = await tenant.create_pages(page("fresh"), page("taken"), page("fresh"))
    assert answer.status == 200
    assert answer.data["createdCount"] == 1
    assert answer.data["failedCount"] == 2
    assert answer.data["failed"] == [
        {"slug": "taken", "message": "the path /taken is already taken in this product", "id": None},
        {"slug": "fresh", "message": "the path /fresh is already taken in this product", "id": None},
    ]
    assert (await tenant.list_pages()).data["total"] == 2


async def test_a_path_freed_by_deletion_can_be_taken_again(tenant: Tenant):
    first = await tenant.create_page("again")
    await tenant.delete_pages(first["id"])
    second = await tenant.create_page("again")
    assert second["id"] != first["id"]


async def test_the_same_slug_in_another_product_is_another_page(tenant: Tenant, stranger: Tenant):
    await tenant.create_page("shared")
    assert (await stranger.create_page("shared"))["slug"] == "shared"


async def test_a_malformed_item_refuses_the_request_naming_the_field(tenant: Tenant):
    answer = await tenant.create_pages(page("good"), {"slug": "Bad Slug", "title": ""}, page("other", status="gone"))
    assert answer.status == 422
    assert answer.body["details"] == {
        "pages.1.slug": "Must be lowercase words and hyphens, in /-separated segments.",
        "pages.1.title": "Length must be between 1 and 500.",
        "pages.2.status": "Must be one of: draft, published.",
    }
    assert (await tenant.list_pages()).data["total"] == 0


async def test_domains_are_attached_and_the_canonical_one_gives_the_address(tenant: Tenant, domains: DomainFactory):
    main, other = await domains.create(tenant.org), await domains.create(tenant.org)
    created = await tenant.create_page("docs/intro", domainIds=[other["id"]], canonicalDomainId=main["id"])
    assert created["sourceUrl"] == f"https://{main['domain']}/docs/intro"
    assert created["domains"] == [
        {"id": main["id"], "domain": main["domain"], "isCanonical": True},
        {"id": other["id"], "domain": other["domain"], "isCanonical": False},
    ]


async def test_unknown_and_foreign_domains_fail_their_item_by_name(
    tenant: Tenant, stranger: Tenant, domains: DomainFactory
):
    mine, theirs, unknown = await domains.create(tenant.org), await domains.create(stranger.org), str(uuid.uuid4())
    answer = await tenant.create_pages(
        page("ok", domainIds=[mine["id"]]),
        page("foreign", domainIds=[mine["id"], theirs["id"]]),
        page("unknown", canonicalDomainId=unknown),
    )
    assert answer.status == 200
    assert [item["slug"] for item in answer.data["created"]] == ["ok"]
    assert answer.data["failed"] == [
        {"slug": "foreign", "message": "domainIds.1: No such domain in this organization.", "id": None},
        {"slug": "unknown", "message": "canonicalDomainId: No such domain in this organization.", "id": None},
    ]
    assert theirs["domain"] not in str(answer.body)


async def test_another_organizations_product_is_404(tenant: Tenant, stranger: Tenant):
    answer = await tenant.call(
        "POST", "/api/v1/site/pages", {"productId": stranger.product["id"], "pages": [page("x")]}
    )
    assert (answer.status, answer.body["code"]) == (404, "NOT_FOUND")
    assert (await stranger.list_pages()).data["total"] == 0


async def test_creation_is_marked_deprecated(tenant: Tenant):
    answer = await tenant.create_pages(page("deprecated"))
    assert answer.headers["Deprecation"] == "@1793491200"
    assert answer.headers["Link"] == '</api/v1/apps>; rel="successor-version"'
