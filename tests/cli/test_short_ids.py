"""Short ids (the first 8 characters a table shows) name every resource: webhook endpoints and
their deliveries, an app's domains, resources and routes. Tables show them short, keep a route's
path whole up to 70 columns, and count deliveries in words."""

from __future__ import annotations

import json

from tests.cli.conftest import Aivis, FakeApi, ok

APP_ID = "5a5a5a5a-1111-4222-8333-444455556666"
ENDPOINT_ID = "e1e1e1e1-1111-4222-8333-444455556666"
OTHER_ENDPOINT_ID = "e2e2e2e2-1111-4222-8333-444455556666"
DELIVERY_ID = "d1d1d1d1-1111-4222-8333-444455556666"
ROUTE_ID = "7a7a7a7a-1111-4222-8333-444455556666"
RESOURCE_ID = "3c3c3c3c-1111-4222-8333-444455556666"
DOMAIN_ID = "d0d0d0d0-1111-4222-8333-444455556666"
ENDPOINTS = "/api/v1/webhook-endpoints"
DELIVERIES = f"{ENDPOINTS}/{ENDPOINT_ID}/deliveries"
LONG_PATH = "/guides/" + "very-long-section-name/" * 2 + "and-a-page-name-that-goes-on-and-on"  # 89 characters


def endpoint(endpoint_id: str) -> dict:
    return {
        "id": endpoint_id,
        "url": "https://hooks.example.com/in",
        "events": ["*"],
        "enabled": True,
        "disabledReason": None,
    }


def delivery(delivery_id: str) -> dict:
    return {
        "id": delivery_id,
        "eventType": "ping",
        "status": "succeeded",
        "createdAt": "2026-11-28T10:00:00+00:00",
        "nextAttemptAt": None,
    }


def test_webhook_commands_take_the_endpoints_and_the_deliverys_short_ids(run: Aivis, api: FakeApi):
    api.on("GET", ENDPOINTS, ok({"endpoints": [endpoint(ENDPOINT_ID), endpoint(OTHER_ENDPOINT_ID)]}))
    api.on("GET", f"{ENDPOINTS}/{ENDPOINT_ID}", ok(endpoint(ENDPOINT_ID)))
    assert run("webhooks", "get", "e1e1e1e1").exit_code == 0
    # Deliveries are read a page at a time until the one named is found.
    second_page = {"deliveries": [delivery(DELIVERY_ID)], "nextCursor": None}
    api.on(
        "GET",
        DELIVERIES,
        ok({"deliveries": [delivery("d9" * 4 + DELIVERY_ID[8:])], "nextCursor": "c2"}),
        ok(second_page),
    )
    retry = f"{DELIVERIES}/{DELIVERY_ID}/retry"
    api.on("POST", retry, ok(delivery(DELIVERY_ID), status=202))
    result = run("webhooks", "retry", "e1e1", "d1d1d1d1")
    assert result.exit_code == 0, result.output
    assert api.requests[-1].url.path == retry
    listed = [r.url.params.get("cursor") for r in api.requests if r.url.path == DELIVERIES]
    assert listed == [None, "c2"]
    ambiguous = run("webhooks", "get", "e")
    assert (ambiguous.exit_code, ambiguous.stderr) == (5, "error: 'e' names 2 webhook endpoints: give more of the id\n")
    unknown = run("webhooks", "deliveries", "ffff")
    assert (unknown.exit_code, unknown.stderr) == (4, "error: no webhook endpoint 'ffff'\n")


def test_routes_resources_and_domains_take_short_ids(run: Aivis, api: FakeApi):
    routes = f"/api/v1/apps/{APP_ID}/routes"
    api.on("GET", routes, ok({"routes": [{"id": ROUTE_ID, "path": "/a"}], "nextCursor": None}))
    api.on("PATCH", f"{routes}/{ROUTE_ID}", ok({"id": ROUTE_ID, "path": "/b"}))
    assert run("routes", "update", APP_ID, "7a7a7a7a", "--path", "/b").exit_code == 0
    assert api.bodies("PATCH", f"{routes}/{ROUTE_ID}") == [{"path": "/b"}]
    resources = f"/api/v1/apps/{APP_ID}/resources"
    api.on("GET", resources, ok([{"id": RESOURCE_ID, "resourceType": "product"}]))
    api.on("DELETE", f"{resources}/{RESOURCE_ID}", ok({"id": RESOURCE_ID}))
    assert run("apps", "remove-resource", APP_ID, "3c3c3c3c").exit_code == 0
    domains = f"/api/v1/apps/{APP_ID}/domains"
    api.on("GET", domains, ok([{"id": DOMAIN_ID, "domain": "docs.example.com"}]))
    api.on("DELETE", f"{domains}/{DOMAIN_ID}", ok({"id": DOMAIN_ID}))
    assert run("domains", "delete", APP_ID, "docs.example.com").exit_code == 0
    assert run("domains", "delete", APP_ID, "d0d0d0d0").exit_code == 0
    assert [r.url.path for r in api.requests if r.method == "DELETE"] == [f"{resources}/{RESOURCE_ID}"] + [
        f"{domains}/{DOMAIN_ID}"
    ] * 2


def test_tables_show_short_ids_and_keep_a_routes_path_whole_up_to_70_columns(run: Aivis, api: FakeApi):
    routes = f"/api/v1/apps/{APP_ID}/routes"
    rows = [
        {
            "id": ROUTE_ID,
            "path": LONG_PATH[:70],
            "targetId": "0" * 8 + APP_ID[8:],
            "target": {"title": "A page with a long title that gives way first"},
        }
    ]
    api.on("GET", routes, ok({"routes": rows, "nextCursor": None}))
    result = run("routes", "list", APP_ID, interactive=True, width=120)
    assert result.exit_code == 0, result.output
    line = result.stdout.splitlines()[1]
    assert line.startswith("7a7a7a7a ") and LONG_PATH[:70] in line
    assert max(len(text) for text in result.stdout.splitlines()) <= 120
    api.on("GET", routes, ok({"routes": [{**rows[0], "path": LONG_PATH}], "nextCursor": None}))
    cut = run("routes", "list", APP_ID, interactive=True, width=120).stdout.splitlines()[1]
    assert LONG_PATH[:60] in cut and LONG_PATH not in cut and "…" in cut
    api.on("GET", ENDPOINTS, ok({"endpoints": [endpoint(ENDPOINT_ID)]}))
    assert run("webhooks", "list", interactive=True).stdout.splitlines()[1].startswith("e1e1e1e1 ")
    piped = run("webhooks", "list").stdout
    assert piped.startswith(ENDPOINT_ID + "\t")


def test_deliveries_are_counted_in_words(run: Aivis, api: FakeApi):
    api.on("GET", DELIVERIES, ok({"deliveries": [delivery(DELIVERY_ID), delivery(DELIVERY_ID)], "nextCursor": None}))
    result = run("webhooks", "deliveries", ENDPOINT_ID, interactive=True)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "2 deliveries"
    assert json.loads(run("webhooks", "deliveries", ENDPOINT_ID, "--json").stdout)["items"][0]["id"] == DELIVERY_ID


def test_deleted_apps_are_listed_with_their_full_ids_and_when_each_can_no_longer_be_restored(run: Aivis, api: FakeApi):
    deleted = {
        "id": APP_ID,
        "name": "Handbook",
        "slug": "handbook",
        "deletedAt": "2026-11-28T10:00:00+00:00",
        "restorableUntil": "2026-12-28T10:00:00+00:00",
    }
    api.on("GET", "/api/v1/deleted-apps", ok({"items": [deleted], "nextCursor": "c2"}))
    result = run("apps", "deleted", "--limit", "1")
    assert result.exit_code == 0, result.output
    assert APP_ID in result.stdout and "Handbook" in result.stdout  # whole: `apps restore` takes only a full id
    assert "1 deleted app; the next page: --cursor c2" in result.stderr
    assert dict(api.requests[-1].url.params) == {"limit": "1"}
    listed = run("apps", "deleted", "--json")
    assert json.loads(listed.stdout) == {"items": [deleted], "nextCursor": "c2"}
