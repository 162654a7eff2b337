"""PATCH /api/v1/site/pages (deprecated): bulk updates, each item on its own."""

from __future__ import annotations

import uuid

import pytest

from tests.content.api import Tenant
from tests.factories import DomainFactory


async def test_listed_fields_are_updated_and_stored(tenant: Tenant):
    created = await tenant.create_page("old-path", content="old")
    answer = await tenant.update_pages(
        {
            "id": created["id"],
            "title": "New title",
            "content": "new",
            "filePath": "new/path/",
            "isManual": False,
            "noIndex": True,
            "redirectToUrl": "https://example.com/moved",
            "metaDescription": "about",
        }
    )
    assert answer.status == 200
    assert answer.data == {
        "scope": tenant.scope,
        "updatedCount": 1,
        "failedCount": 0,
        "updated": [
            {
                "id": created["id"],
                "title": "New title",
                "filePath": "/new/path",
                "sourceUrl": None,
                "status": "draft",
                "isManual": False,
                "domains": [],
            }
        ],
        "failed": [],
    }
    stored = (await tenant.document(created["id"])).data
    assert (stored["content"], stored["noIndex"], stored["metaDescription"]) == ("new", True, "about")
    assert stored["redirectToUrl"] == "https://example.com/moved"


async def test_publishing_sets_published_at_and_drafting_clears_it(tenant: Tenant):
    created = await tenant.create_page("to-publish")
    published = (await tenant.update_pages({"id": created["id"], "status": "published"})).data["updated"][0]
    assert published["status"] == "published"
    stored = (await tenant.document(created["id"])).data
    assert stored["publishedAt"] is not None
    await tenant.update_pages({"id": created["id"], "status": "draft"})
    assert (await tenant.document(created["id"])).data["publishedAt"] is None


async def test_a_status_outside_draft_and_published_is_422(tenant: Tenant):
    created = await tenant.create_page("status")
    answer = await tenant.update_pages({"id": created["id"], "status": "archived"})
    assert answer.status == 422
    assert answer.body["details"] == {"pages.0.status": "Must be one of: draft, published."}
    assert (await tenant.document(created["id"])).data["status"] == "draft"


@pytest.mark.parametrize("count", [1, 25])
async def test_one_to_twenty_five_updates_are_accepted(tenant: Tenant, count: int):
    created = await tenant.create_page("many")
    answer = await tenant.update_pages(*({"id": created["id"], "title": f"t{index}"} for index in range(count)))
    assert answer.status == 200
    assert answer.data["updatedCount"] == count
    assert (await tenant.document(created["id"])).data["title"] == f"t{count - 1}"


@pytest.mark.parametrize("count", [0, 26])
async def test_zero_or_twenty_six_updates_are_refused_whole(tenant: Tenant, count: int):
    created = await tenant.create_page("few")
    answer = await tenant.update_pages(*({"id": created["id"], "title": "changed"} for _ in range(count)))
    assert answer.status == 422
    assert "pages" in answer.body["details"]
    assert (await tenant.document(created["id"])).data["title"] == "few"


async def test_unknown_foreign_and_other_product_pages_fail_alone(tenant: Tenant, stranger: Tenant, identity):
    mine = await tenant.create_page("mine")
    theirs = await stranger.create_page("theirs")
    other_product = await identity.product(tenant.org, "Other")
    elsewhere = Tenant(tenant.gateway, tenant.org, other_product, tenant.key)
    in_other_product = await elsewhere.create_page("elsewhere")
    unknown = str(uuid.uuid4())
    answer = await tenant.update_pages(
        {"id": mine["id"], "title": "Changed"},
        {"id": theirs["id"], "title": "Hijacked"},
        {"id": in_other_product["id"], "title": "Moved"},
        {"id": unknown, "title": "Nobody"},
        {"id": "not-a-uuid", "title": "Nothing"},
    )
    assert answer.status == 200
    assert [item["id"] for item in answer.data["updated"]] == [mine["id"]]
    message = "no such page in this product"
    assert answer.data["failed"] == [
        {"id": theirs["id"], "message": message, "slug": None},
        {"id": in_other_product["id"], "message": message, "slug": None},
        {"id": unknown, "message": message, "slug": None},
        {"id": "not-a-uuid", "message": message, "slug": None},
    ]
    assert (await stranger.document(theirs["id"])).data["title"] == "theirs"
    assert (await elsewhere.document(in_other_product["id"])).data["title"] == "elsewhere"


async def test_a_taken_path_fails_its_item_and_names_the_page(tenant: Tenant):
    first, second = await tenant.create_page("first"), await tenant.create_page("second")
    answer = await tenant.update_pages({"id": second["id"], "filePath": "/first"}, {"id": first["id"], "title": "T"})
    assert answer.data["failed"] == [
        {"id": second["id"], "message": "the path /first is already taken in this product", "slug": "second"}
    ]
    assert [item["title"] for item in answer.data["updated"]] == ["T"]
    assert (await tenant.document(second["id"])).data["filePath"] == "/second"


async def test_domains_are_attached_detached_and_made_canonical(tenant: Tenant, domains: DomainFactory):
    one, two = await domains.create(tenant.org), await domains.create(tenant.org)
    created = await tenant.create_page("served", domainIds=[one["id"]], canonicalDomainId=one["id"])
    answer = await tenant.update_pages(
        {
            "id": created["id"],
            "attachDomainIds": [two["id"]],
            "detachDomainIds": [one["id"]],
            "canonicalDomainId": two["id"],
        }
    )
    updated = answer.data["updated"][0]
    assert updated["domains"] == [{"id": two["id"], "domain": two["domain"], "isCanonical": True}]
    assert updated["sourceUrl"] == f"https://{two['domain']}/served"


async def test_a_foreign_domain_fails_its_item_by_name(tenant: Tenant, stranger: Tenant, domains: DomainFactory):
    created = await tenant.create_page("guarded")
    theirs = await domains.create(stranger.org)
    answer = await tenant.update_pages({"id": created["id"], "attachDomainIds": [theirs["id"]], "title": "New"})
    assert answer.data["failed"] == [
        {"id": created["id"], "message": "attachDomainIds.0: No such domain in this organization.", "slug": "guarded"}
    ]
    assert (await tenant.document(created["id"])).data["title"] == "guarded"


async def test_updating_is_marked_deprecated(tenant: Tenant):
    created = await tenant.create_page("old")
    answer = await tenant.update_pages({"id": created["id"], "title": "new"})
    assert answer.headers["Deprecation"] == "@1793491200"
    assert answer.headers["Link"] == '</api/v1/apps>; rel="successor-version"'
