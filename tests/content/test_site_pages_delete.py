"""DELETE /api/v1/site/pages: soft deletion in bulk, each item on its own."""

from __future__ import annotations

import uuid

import pytest

from tests.content.api import Tenant


async def test_deletion_is_soft_and_hides_the_page(tenant: Tenant, content_service):
    created = await tenant.create_page("goodbye")
    answer = await tenant.delete_pages(created["id"])
    assert answer.status == 200
    assert answer.data == {
        "scope": tenant.scope,
        "deletedCount": 1,
        "failedCount": 0,
        "deleted": [{"id": created["id"], "title": "goodbye"}],
        "failed": [],
    }
    # Deprecated like create and update (contract, site pages), and still working.
    assert answer.headers["Deprecation"] == "@1793491200"  # 2026-11-01T00:00:00Z
    assert answer.headers["Link"] == '</api/v1/apps>; rel="successor-version"'
    assert (await tenant.document(created["id"])).status == 404
    assert (await tenant.list_pages()).data["total"] == 0
    status, stored = await content_service.call("GET", f"/internal/documents/{created['id']}", tenant.org)
    assert status == 200
    assert stored["deletedAt"] is not None


@pytest.mark.parametrize("count", [1, 50])
async def test_one_to_fifty_ids_are_accepted(tenant: Tenant, count: int):
    answer = await tenant.delete_pages(*(str(uuid.uuid4()) for _ in range(count)))
    assert answer.status == 200
    assert answer.data["failedCount"] == count


@pytest.mark.parametrize("count", [0, 51])
async def test_zero_or_fifty_one_ids_are_refused_whole(tenant: Tenant, count: int):
    created = await tenant.create_page("kept")
    answer = await tenant.delete_pages(*([created["id"]] * count))
    assert answer.status == 422
    assert "pageIds" in answer.body["details"]
    assert (await tenant.document(created["id"])).status == 200


async def test_an_empty_id_is_refused(tenant: Tenant):
    answer = await tenant.delete_pages("")
    assert answer.status == 422
    assert answer.body["details"] == {"pageIds.0": "Shorter than minimum length 1."}


async def test_unknown_foreign_and_already_deleted_pages_fail_alone(tenant: Tenant, stranger: Tenant):
    mine, gone = await tenant.create_page("mine"), await tenant.create_page("gone")
    theirs = await stranger.create_page("theirs")
    await tenant.delete_pages(gone["id"])
    answer = await tenant.delete_pages(mine["id"], theirs["id"], gone["id"], "nope")
    assert answer.data["deleted"] == [{"id": mine["id"], "title": "mine"}]
    message = "no such page in this product"
    assert answer.data["failed"] == [
        {"id": theirs["id"], "message": message, "slug": None},
        {"id": gone["id"], "message": message, "slug": None},
        {"id": "nope", "message": message, "slug": None},
    ]
    assert (await stranger.document(theirs["id"])).status == 200
