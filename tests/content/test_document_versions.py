"""ETag, If-Match and If-None-Match on one content document: no edit is overwritten blindly."""

from __future__ import annotations

import asyncio

from tests.content.api import Tenant


async def test_a_document_carries_the_etag_of_its_version_which_a_write_moves(tenant: Tenant):
    created = await tenant.create_page("versioned")
    path = f"/api/v1/content/{created['id']}"
    read = await tenant.document(created["id"])
    assert read.headers["ETag"].startswith('"') and read.headers["ETag"].endswith('"')
    assert (await tenant.document(created["id"])).headers["ETag"] == read.headers["ETag"]
    written = await tenant.call("PUT", path, {"title": "New title"})
    assert written.status == 200 and written.headers["ETag"] != read.headers["ETag"]
    assert (await tenant.document(created["id"])).headers["ETag"] == written.headers["ETag"]
    patched = await tenant.call("PATCH", path, {"priority": 70})
    assert patched.headers["ETag"] not in (read.headers["ETag"], written.headers["ETag"])


async def test_if_none_match_with_the_current_etag_is_a_304_without_a_body(tenant: Tenant):
    created = await tenant.create_page("cached")
    current = (await tenant.document(created["id"])).headers["ETag"]
    path = f"/api/v1/content/{created['id']}"
    unchanged = await tenant.call("GET", path, headers={"If-None-Match": current})
    assert (unchanged.status, unchanged.body, unchanged.headers["ETag"]) == (304, None, current)
    assert (await tenant.call("GET", path, headers={"If-None-Match": f'"other", W/{current}'})).status == 304
    await tenant.call("PUT", path, {"content": "changed"})
    changed = await tenant.call("GET", path, headers={"If-None-Match": current})
    assert changed.status == 200 and changed.data["content"] == "changed"
    assert changed.headers["ETag"] != current


async def test_a_stale_if_match_is_a_412_naming_the_current_etag_and_nothing_is_written(tenant: Tenant):
    created = await tenant.create_page("edited")
    path = f"/api/v1/content/{created['id']}"
    seen = (await tenant.document(created["id"])).headers["ETag"]
    first = await tenant.call("PUT", path, {"title": "First editor"}, headers={"If-Match": seen})
    assert first.status == 200
    second = await tenant.call("PUT", path, {"title": "Second editor"}, headers={"If-Match": seen})
    assert second.status == 412
    assert second.body["code"] == "PRECONDITION_FAILED"
    assert second.body["details"] == {"etag": first.headers["ETag"]}
    priority = await tenant.call("PATCH", path, {"priority": 1}, headers={"If-Match": seen})
    assert priority.status == 412
    stored = (await tenant.document(created["id"])).data
    assert (stored["title"], stored["priority"]) == ("First editor", 50)
    retried = await tenant.call("PUT", path, {"title": "Second editor"}, headers={"If-Match": first.headers["ETag"]})
    assert retried.status == 200 and retried.data["title"] == "Second editor"


async def test_of_concurrent_writes_from_one_version_exactly_one_wins(tenant: Tenant):
    created = await tenant.create_page("raced")
    path = f"/api/v1/content/{created['id']}"
    seen = (await tenant.document(created["id"])).headers["ETag"]
    answers = await asyncio.gather(
        *(tenant.call("PUT", path, {"title": f"Editor {n}"}, headers={"If-Match": seen}) for n in range(6))
    )
    winners = [answer for answer in answers if answer.status == 200]
    assert len(winners) == 1
    assert sorted(answer.status for answer in answers) == [200, 412, 412, 412, 412, 412]
    stored = await tenant.document(created["id"])
    assert stored.data["title"] == winners[0].data["title"]
    assert stored.headers["ETag"] == winners[0].headers["ETag"]


async def test_if_match_star_or_no_header_writes_as_before(tenant: Tenant):
    created = await tenant.create_page("unconditional")
    path = f"/api/v1/content/{created['id']}"
    assert (await tenant.call("PUT", path, {"title": "A"}, headers={"If-Match": "*"})).status == 200
    assert (await tenant.call("PUT", path, {"title": "B"})).status == 200
    weak = await tenant.call(
        "PUT", path, {"title": "C"}, headers={"If-Match": f"W/{(await tenant.document(created['id'])).headers['ETag']}"}
    )
    assert weak.status == 412  # If-Match compares strongly: a weak tag never matches
