"""`aivis apps delete/restore/remove-resource`, `aivis routes list/delete`, `aivis domains delete`."""

from __future__ import annotations

import json

from tests.cli.conftest import Aivis, FakeApi, error, ok

APP_ID = "5a5a5a5a-1111-4222-8333-444455556666"
APP = {"id": APP_ID, "slug": "docs", "name": "Docs"}
APPS = "/api/v1/apps"
ROUTE = {
    "id": "7e7e7e7e-1111-4222-8333-444455556666",
    "path": "/guide",
    "targetType": "product_document",
    "targetId": "0d0d0d0d-1111-4222-8333-444455556666",
    "target": {"title": "Guide"},
}
DELETED_AT = "2026-11-26T10:00:00+00:00"


def test_apps_delete_prints_how_to_restore(run: Aivis, api: FakeApi):
    api.on("GET", APPS, ok([APP]))
    api.on("DELETE", f"{APPS}/{APP_ID}", ok({**APP, "deletedAt": DELETED_AT}))
    result = run("apps", "delete", "5a5a")
    assert result.exit_code == 0, result.output
    assert f"deletedAt\t{DELETED_AT}" in result.stdout
    assert f"restore it with: aivis apps restore {APP_ID}" in result.stderr


def test_apps_restore_takes_the_full_id(run: Aivis, api: FakeApi):
    api.on("POST", f"{APPS}/{APP_ID}/restore", ok({**APP, "deletedAt": None, "appConfig": {}, "resources": []}))
    result = run("apps", "restore", APP_ID, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deletedAt"] is None
    short = run("apps", "restore", "5a5a")
    assert short.exit_code == 2 and "full id" in short.stderr
    assert [request.url.path for request in api.requests] == [f"{APPS}/{APP_ID}/restore"]


def test_restoring_a_live_app_says_so(run: Aivis, api: FakeApi):
    api.on("POST", f"{APPS}/{APP_ID}/restore", error(409, "CONFLICT", "the app is not deleted"))
    result = run("apps", "restore", APP_ID)
    assert (result.exit_code, result.stderr) == (6, "error: CONFLICT: the app is not deleted\n")


def test_routes_list_asks_for_a_page_and_names_the_next(run: Aivis, api: FakeApi):
    api.on("GET", f"{APPS}/{APP_ID}/routes", ok({"routes": [ROUTE], "nextCursor": "abc"}))
    result = run("routes", "list", APP_ID, "--path-prefix", "/gu", "--limit", "1", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"items": [ROUTE], "nextCursor": "abc"}
    assert dict(api.requests[0].url.params) == {"pathPrefix": "/gu", "limit": "1"}
    table = run("routes", "list", APP_ID, "--target", ROUTE["targetId"], "--cursor", "abc")
    assert table.exit_code == 0, table.output
    assert "/guide" in table.stdout and "--cursor abc" in table.output
    assert dict(api.requests[1].url.params) == {"targetId": ROUTE["targetId"], "cursor": "abc"}


def test_routes_delete_and_domains_delete_and_remove_resource(run: Aivis, api: FakeApi):
    domain_id, resource_id = "d0d0d0d0-1111-4222-8333-444455556666", "e0e0e0e0-1111-4222-8333-444455556666"
    api.on("DELETE", f"{APPS}/{APP_ID}/routes/{ROUTE['id']}", ok({**ROUTE, "deletedAt": DELETED_AT}))
    api.on(
        "DELETE",
        f"{APPS}/{APP_ID}/domains/{domain_id}",
        ok({"id": domain_id, "domain": "a.example.com", "deletedAt": DELETED_AT}),
    )
    api.on("DELETE", f"{APPS}/{APP_ID}/resources/{resource_id}", ok({"id": resource_id, "deletedAt": DELETED_AT}))
    for args in (
        ("routes", "delete", APP_ID, ROUTE["id"]),
        ("domains", "delete", APP_ID, domain_id),
        ("apps", "remove-resource", APP_ID, resource_id),
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
        assert f"deletedAt\t{DELETED_AT}" in result.stdout
    assert [request.method for request in api.requests] == ["DELETE"] * 3


def test_deleting_what_is_gone_is_not_found(run: Aivis, api: FakeApi):
    api.on("DELETE", f"{APPS}/{APP_ID}/routes/{ROUTE['id']}", error(404, "NOT_FOUND", "route not found"))
    result = run("routes", "delete", APP_ID, ROUTE["id"])
    assert (result.exit_code, result.stderr) == (4, "error: NOT_FOUND: route not found\n")
