"""/api/v1/content/{id} and /api/v1/content/by-path: one document, its fields and its priority."""

from __future__ import annotations

import uuid

import pytest

from tests.content.api import Tenant

FULL_DOCUMENT_KEYS = {
    "id",
    "createdAt",
    "updatedAt",
    "deletedAt",
    "lastIndexedAt",
    "publishedAt",
    "filePath",
    "title",
    "content",
    "sourceUrl",
    "cssSelector",
    "cssExcludeSelector",
    "sourceChecksum",
    "brandId",
    "isManual",
    "canonicalUrl",
    "description",
    "descriptionForAgent",
    "image",
    "metaTitle",
    "metaDescription",
    "noIndex",
    "ogTitle",
    "ogDescription",
    "ogImage",
    "twitterTitle",
    "twitterDescription",
    "twitterImage",
    "type",
    "tags",
    "currentDraftId",
    "status",
    "priority",
    "promptId",
    "redirectToUrl",
    "metadata",
    "tiptapJson",
}


async def test_a_document_is_the_full_shape(tenant: Tenant):
    created = await tenant.create_page("full", content="# Hi")
    answer = await tenant.document(created["id"])
    assert answer.status == 200
    assert set(answer.data) == FULL_DOCUMENT_KEYS
    assert (answer.data["id"], answer.data["title"], answer.data["content"]) == (created["id"], "full", "# Hi")
    assert (answer.data["priority"], answer.data["tags"], answer.data["tiptapJson"]) == (50, [], None)


async def test_another_organizations_or_an_unknown_document_is_404(tenant: Tenant, stranger: Tenant):
    theirs = await stranger.create_page("theirs")
    for document_id in (theirs["id"], str(uuid.uuid4()), "not-an-id"):
        answer = await tenant.document(document_id)
        assert (answer.status, answer.body["code"]) == (404, "NOT_FOUND")
    answer = await tenant.call("PUT", f"/api/v1/content/{theirs['id']}", {"title": "Mine now"})
    assert answer.status == 404
    assert (await stranger.document(theirs["id"])).data["title"] == "theirs"


async def test_by_path_finds_the_document_in_any_spelling_of_the_path(tenant: Tenant):
    created = await tenant.create_page("docs/start", content="Begin", description="How to begin")
    for path in ("/docs/start", "docs/start", "/docs//start/"):
        answer = await tenant.call(
            "GET", "/api/v1/content/by-path", params={"brandId": tenant.product["id"], "path": path}
        )
        assert answer.status == 200
        assert answer.data == {
            "id": created["id"],
            "title": "docs/start",
            "content": "Begin",
            "filePath": "/docs/start",
            "sourceUrl": None,
            "description": "How to begin",
        }


async def test_by_path_needs_both_parameters_and_a_live_document(tenant: Tenant, stranger: Tenant):
    answer = await tenant.call("GET", "/api/v1/content/by-path", params={"brandId": tenant.product["id"]})
    assert answer.body["details"] == {"path": "Missing data for required field."}
    answer = await tenant.call("GET", "/api/v1/content/by-path", params={"brandId": tenant.product["id"], "path": ""})
    assert answer.status == 422
    answer = await tenant.call("GET", "/api/v1/content/by-path", params={"brandId": tenant.product["id"], "path": "/x"})
    assert answer.status == 404
    await stranger.create_page("theirs")
    answer = await tenant.call(
        "GET", "/api/v1/content/by-path", params={"brandId": stranger.product["id"], "path": "/theirs"}
    )
    assert (answer.status, answer.body["code"]) == (404, "NOT_FOUND")


@pytest.mark.parametrize("priority", [0, 100, 37.5])
async def test_priority_from_0_to_100_is_set(tenant: Tenant, priority: float):
    created = await tenant.create_page("prioritised")
    answer = await tenant.call("PATCH", f"/api/v1/content/{created['id']}", {"priority": priority})
    assert answer.status == 200
    assert set(answer.data) == FULL_DOCUMENT_KEYS
    assert answer.data["priority"] == priority
    assert (await tenant.document(created["id"])).data["priority"] == priority


@pytest.mark.parametrize("priority", [-1, 100.5, 101, "50", None, True])
async def test_priority_outside_0_to_100_or_not_a_number_is_422(tenant: Tenant, priority):
    created = await tenant.create_page("unprioritised")
    answer = await tenant.call("PATCH", f"/api/v1/content/{created['id']}", {"priority": priority})
    assert (answer.status, list(answer.body["details"])) == (422, ["priority"])
    assert (await tenant.document(created["id"])).data["priority"] == 50


async def test_priority_patch_takes_nothing_else(tenant: Tenant):
    created = await tenant.create_page("strict")
    answer = await tenant.call("PATCH", f"/api/v1/content/{created['id']}", {"priority": 5, "title": "x"})
    assert answer.body["details"] == {"title": "Unknown field."}
    answer = await tenant.call("PATCH", f"/api/v1/content/{created['id']}", {})
    assert answer.body["details"] == {"priority": "Missing data for required field."}


async def test_put_changes_the_given_fields_and_leaves_the_others(tenant: Tenant):
    created = await tenant.create_page("put", content="kept", description="kept too")
    before = (await tenant.document(created["id"])).data
    changes = {
        "title": "New",
        "tags": ["a", "b"],
        "tiptapJson": {"type": "doc", "content": []},
        "noIndex": True,
        "ogImage": "https://cdn.example.com/og.png",
        "cssSelector": "main",
        "priority": 80,
        "sourceUrl": "",
    }
    answer = await tenant.call("PUT", f"/api/v1/content/{created['id']}", changes)
    assert answer.status == 200
    after = answer.data
    assert {key: after[key] for key in changes} == changes
    unchanged = FULL_DOCUMENT_KEYS - set(changes) - {"updatedAt"}
    assert {key: after[key] for key in unchanged} == {key: before[key] for key in unchanged}
    assert after["updatedAt"] > before["updatedAt"]
    assert (await tenant.document(created["id"])).data == after


async def test_put_with_nothing_new_changes_nothing(tenant: Tenant):
    created = await tenant.create_page("same")
    before = (await tenant.document(created["id"])).data
    answer = await tenant.call("PUT", f"/api/v1/content/{created['id']}", {"title": "same"})
    assert answer.data == before


async def test_put_to_a_taken_path_is_409(tenant: Tenant):
    await tenant.create_page("taken")
    created = await tenant.create_page("mover")
    answer = await tenant.call("PUT", f"/api/v1/content/{created['id']}", {"filePath": "taken/"})
    assert (answer.status, answer.body["code"]) == (409, "CONFLICT")
    assert answer.body["message"] == "the path /taken is already taken in this product"
    assert (await tenant.document(created["id"])).data["filePath"] == "/mover"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"title": ""}, "title"),
        ({"sourceUrl": "ftp://example.com"}, "sourceUrl"),
        ({"redirectToUrl": "elsewhere"}, "redirectToUrl"),
        ({"filePath": "/a?b"}, "filePath"),
        ({"noIndex": 1}, "noIndex"),
        ({"tags": "a"}, "tags"),
        ({"tags": [""]}, "tags.0"),
        ({"priority": 101}, "priority"),
        ({"status": "published"}, "status"),
    ],
)
async def test_put_refuses_ill_typed_and_unknown_fields(tenant: Tenant, body: dict, field: str):
    created = await tenant.create_page("typed")
    answer = await tenant.call("PUT", f"/api/v1/content/{created['id']}", body)
    assert (answer.status, list(answer.body["details"])) == (422, [field])


async def test_nul_characters_are_refused_not_stored(tenant: Tenant):
    created = await tenant.create_page("nul")
    answer = await tenant.call(
        "PUT", f"/api/v1/content/{created['id']}", {"content": "a\u0000b", "tiptapJson": ["\u0000"]}
    )
    assert answer.status == 422
    assert answer.body["details"] == {
        "content": "Must not contain NUL characters.",
        "tiptapJson.0": "Must not contain NUL characters.",
    }
    answer = await tenant.list_pages(query="\u0000")
    assert (answer.status, answer.body["details"]) == (422, {"query": "Must not contain NUL characters."})


async def test_the_longest_path_the_contract_allows_fits_in_a_request(tenant: Tenant):
    path = "/" + "😀" * 2047  # 2,048 characters, each 12 bytes once percent-encoded
    answer = await tenant.call("GET", "/api/v1/content/by-path", params={"brandId": tenant.product["id"], "path": path})
    assert (answer.status, answer.body["code"]) == (404, "NOT_FOUND")
