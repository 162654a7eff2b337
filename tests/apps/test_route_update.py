"""PATCH a route: the same path rules as an import, and a target that must be the organization's document."""

from __future__ import annotations

import asyncio
import uuid

import aiopg
import pytest

from libs.common.db import cursor, fetch_all
from services.apps.schemas import responses as schemas
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of


async def make_route(tenant: Tenant, content: FakeContent, app: dict, path: str) -> tuple[dict, dict]:
    document = content.add(tenant.org, tenant.product)
    status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route(path, document)]})
    assert status == 200, body
    return body["data"]["routes"][0], document


async def stored_path_of(tenant: Tenant, app: dict, document: dict) -> str | None:
    """Where the app routes `document`, seen through an import preview."""
    status, body = await tenant.post(f"{routes_of(app)}/import-preview", {"routes": [route("/probe", document)]})
    existing = body["data"]["routes"][0]["existingRoute"]
    return None if existing is None else existing["path"]


async def test_a_path_is_kept_as_sent(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    made, document = await make_route(tenant, content, app, "/old")
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {"path": "/caf%C3%A9/x"})
    assert status == 200
    assert_shape(schemas.AppRoute, body["data"])
    assert (body["data"]["path"], body["data"]["target"], body["data"]["product"]) == (
        "/caf%C3%A9/x",
        document,
        tenant.product,
    )
    assert body["data"]["updatedAt"] > made["updatedAt"]
    assert await stored_path_of(tenant, app, document) == "/caf%C3%A9/x"


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("guides//new/", "/guides//new/"), ("/a/./b/../c", "/a/c"), ("/caf%c3%a9", "/caf%C3%A9"), ("/%7Eada", "/~ada")],
)
async def test_a_path_is_normalised_only_as_rfc_3986_allows(tenant: Tenant, content: FakeContent, sent: str, kept: str):
    app = await tenant.create_app()
    made, document = await make_route(tenant, content, app, "/old")
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {"path": sent})
    assert (status, body["data"]["path"]) == (200, kept)
    assert await stored_path_of(tenant, app, document) == kept


async def test_a_route_may_take_another_spelling_of_its_own_path(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    made, _ = await make_route(tenant, content, app, "/same")
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {"path": "/same/"})
    assert (status, body["data"]["path"]) == (200, "/same/")


@pytest.mark.parametrize("spelling", ["/caf%C3%A9/x", "/caf%c3%a9/x", "/cafe\u0301/x", "/café//x/"])
async def test_another_spelling_of_a_taken_path_is_a_conflict(tenant: Tenant, content: FakeContent, spelling: str):
    app = await tenant.create_app()
    await make_route(tenant, content, app, "/café/x")
    made, document = await make_route(tenant, content, app, "/mine")
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {"path": spelling})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert await stored_path_of(tenant, app, document) == "/mine"


async def test_a_path_of_another_route_is_a_conflict(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    await make_route(tenant, content, app, "/taken")
    made, document = await make_route(tenant, content, app, "/mine")
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {"path": "taken"})
    assert (status, body["code"]) == (409, "CONFLICT")
    assert await stored_path_of(tenant, app, document) == "/mine"


async def test_the_target_is_changed_to_another_document(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    made, old = await make_route(tenant, content, app, "/page")
    new = content.add(tenant.org, tenant.product, title="New page")
    status, body = await tenant.patch(
        f"{routes_of(app)}/{made['id']}", {"targetId": new["id"], "targetType": "product_document"}
    )
    assert status == 200
    assert (body["data"]["targetId"], body["data"]["target"], body["data"]["path"]) == (new["id"], new, "/page")
    assert await stored_path_of(tenant, app, new) == "/page"
    assert await stored_path_of(tenant, app, old) is None


async def test_no_transaction_is_open_while_the_content_service_answers(
    tenant: Tenant, content: FakeContent, apps_pool
):
    app = await tenant.create_app()
    made, _ = await make_route(tenant, content, app, "/page")
    new = content.add(tenant.org, tenant.product)
    content.lookup_released = asyncio.Event()
    update = asyncio.ensure_future(tenant.patch(f"{routes_of(app)}/{made['id']}", {"targetId": new["id"]}))
    await asyncio.wait_for(content.lookup_waiting.wait(), 10)
    # Twice, a moment apart: a session idle in the same transaction in both is one held open across the
    # wait; the service's background work (its sweeps, its relays) passes through short ones.
    first = await idle_in_transaction(apps_pool)
    await asyncio.sleep(0.5)
    held = first & await idle_in_transaction(apps_pool)
    content.lookup_released.set()
    status, body = await update
    assert (status, body["data"]["targetId"]) == (200, new["id"])
    assert held == set()


async def idle_in_transaction(pool: aiopg.Pool) -> set[tuple[int, object]]:
    """The sessions of the pool's role idle inside a transaction: (pid, when the transaction began)."""
    async with cursor(pool) as cur:
        rows = await fetch_all(
            cur,
            "SELECT pid, xact_start FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()"
            " AND state IN ('idle in transaction', 'idle in transaction (aborted)')"
            " AND application_name NOT LIKE 'relay %'",  # the webhook outbox's relay: its own short transactions
        )
    return {(row["pid"], row["xact_start"]) for row in rows}


@pytest.mark.parametrize("whose", ["another organization's", "unknown"])
async def test_a_target_not_of_the_organization_is_refused(
    tenant: Tenant, other_tenant: Tenant, content: FakeContent, whose: str
):
    app = await tenant.create_app()
    made, document = await make_route(tenant, content, app, "/page")
    target_id = content.add(other_tenant.org, other_tenant.product)["id"] if whose != "unknown" else str(uuid.uuid4())
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {"targetId": target_id})
    assert status == 422
    assert body["details"] == {"targetId": "No such document in this organization."}
    assert await stored_path_of(tenant, app, document) == "/page"


@pytest.mark.parametrize(
    "body",
    [
        {"path": "/a b"},
        {"path": "/a?b"},
        {"path": "a" * 2048},
        {"path": ""},
        {"targetType": "page"},
        {"targetId": "x"},
        {"id": "x"},
    ],
)
async def test_invalid_changes_are_refused(tenant: Tenant, content: FakeContent, body: dict):
    app = await tenant.create_app()
    made, _ = await make_route(tenant, content, app, "/page")
    status, answer = await tenant.patch(f"{routes_of(app)}/{made['id']}", body)
    assert status == 422
    assert answer["code"] == "VALIDATION_FAILED"


async def test_an_update_without_fields_changes_nothing(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    made, document = await make_route(tenant, content, app, "/page")
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {})
    assert status == 200
    assert body["data"] == made


async def test_a_route_of_another_app_or_organization_is_not_found(
    tenant: Tenant, other_tenant: Tenant, content: FakeContent
):
    app, other_app = await tenant.create_app(slug="one"), await tenant.create_app(slug="two")
    made, _ = await make_route(tenant, content, app, "/page")
    theirs = await other_tenant.create_app()
    for app_id, route_id in [
        (other_app["id"], made["id"]),
        (theirs["id"], made["id"]),
        (app["id"], str(uuid.uuid4())),
        (app["id"], "not-a-uuid"),
    ]:
        status, body = await tenant.patch(f"/api/v1/apps/{app_id}/routes/{route_id}", {"path": "/moved"})
        assert (status, body["code"]) == (404, "NOT_FOUND")
    status, body = await other_tenant.patch(f"{routes_of(theirs)}/{made['id']}", {"path": "/moved"})
    assert status == 404
