"""Route import: the preview and the batch, which share one check and must always agree."""

from __future__ import annotations

import uuid

import pytest

from services.apps.schemas import responses as schemas
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of


async def preview(tenant: Tenant, app: dict, items: list[dict]) -> tuple[int, dict]:
    return await tenant.post(f"{routes_of(app)}/import-preview", {"routes": items})


async def batch(tenant: Tenant, app: dict, items: list[dict]) -> tuple[int, dict]:
    return await tenant.post(f"{routes_of(app)}/batch", {"routes": items})


async def test_preview_of_free_paths_creates_every_route_and_writes_nothing(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    first, second = content.add(tenant.org, tenant.product), content.add(tenant.org, tenant.product)
    items = [route("/a", first), route("b", second)]
    for _ in range(2):  # twice: the first preview stored nothing
        status, body = await preview(tenant, app, items)
        assert status == 200
        data = body["data"]
        assert_shape(schemas.RoutePreview, data)
        assert (data["appId"], data["valid"], data["createCount"], data["conflictCount"], data["skipCount"]) == (
            app["id"],
            True,
            2,
            0,
            0,
        )
        assert data["routes"][1] == {
            "input": items[1],
            "action": "create",
            "issues": [],
            "existingRoute": None,
            "pathConflict": None,
            "target": second,
            "product": tenant.product,
        }


async def test_batch_creates_the_routes_with_the_paths_as_sent(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    first, second = content.add(tenant.org, tenant.product), content.add(tenant.org, tenant.product)
    status, body = await batch(tenant, app, [route("docs//intro/", first), route("/docs/./caf%c3%a9", second)])
    assert status == 200
    assert_shape(schemas.RouteBatchResult, body["data"])
    assert body["data"]["createdCount"] == 2
    created = body["data"]["routes"]
    assert [(r["path"], r["targetId"], r["target"], r["product"]) for r in created] == [
        ("/docs//intro/", first["id"], first, tenant.product),
        ("/docs/caf%C3%A9", second["id"], second, tenant.product),
    ]
    status, body = await preview(tenant, app, [route("/docs/intro", first), route("/docs/café", second)])
    assert [entry["existingRoute"] for entry in body["data"]["routes"]] == [
        {"id": created[0]["id"], "path": "/docs//intro/"},
        {"id": created[1]["id"], "path": "/docs/caf%C3%A9"},
    ]


async def test_a_retried_batch_skips_identical_routes(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    items = [route("/a", content.add(tenant.org, tenant.product)), route("/b", content.add(tenant.org, tenant.product))]
    status, first = await batch(tenant, app, items)
    status, retried = await batch(tenant, app, items)
    assert status == 200
    assert retried["data"]["createdCount"] == 0
    assert retried["data"]["routes"] == first["data"]["routes"]
    status, body = await preview(tenant, app, items)
    assert [(e["action"], e["issues"]) for e in body["data"]["routes"]] == [("skip", ["already_routed"])] * 2
    assert body["data"]["skipCount"] == 2


async def test_a_path_taken_by_another_target_fails_the_whole_batch(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    taken, other, free = (content.add(tenant.org, tenant.product) for _ in range(3))
    status, body = await batch(tenant, app, [route("/taken", taken)])
    existing = body["data"]["routes"][0]
    items = [route("/free", free), route("/taken/", other)]
    status, body = await batch(tenant, app, items)
    assert status == 409
    assert body["code"] == "CONFLICT"
    entry = body["details"]["routes"][1]
    assert (entry["action"], entry["issues"]) == ("conflict", ["path_conflict"])
    assert entry["pathConflict"] == {
        "id": existing["id"],
        "path": "/taken",
        "targetType": "product_document",
        "targetId": taken["id"],
    }
    status, after = await preview(tenant, app, items)
    assert after["data"]["routes"][0]["action"] == "create"  # all or nothing: /free was not created


async def test_a_path_twice_in_one_request_is_a_duplicate(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    first, second = content.add(tenant.org, tenant.product), content.add(tenant.org, tenant.product)
    status, body = await preview(tenant, app, [route("/a", first), route("a/", second)])
    assert [(e["action"], e["issues"]) for e in body["data"]["routes"]] == [
        ("create", []),
        ("conflict", ["duplicate_in_request"]),
    ]
    assert (body["data"]["valid"], body["data"]["conflictCount"]) == (False, 1)


@pytest.mark.parametrize("whose", ["another organization's", "unknown"])
async def test_a_target_not_of_the_organization_is_not_found(
    tenant: Tenant, other_tenant: Tenant, content: FakeContent, whose: str
):
    app = await tenant.create_app()
    theirs = content.add(other_tenant.org, other_tenant.product)
    target = theirs if whose == "another organization's" else {"id": str(uuid.uuid4())}
    items = [route("/a", target)]
    status, body = await preview(tenant, app, items)
    entry = body["data"]["routes"][0]
    assert (entry["action"], entry["issues"], entry["target"], entry["product"]) == (
        "conflict",
        ["target_not_found"],
        None,
        None,
    )
    status, answer = await batch(tenant, app, items)
    assert status == 409
    assert answer["details"] == body["data"]


async def test_a_target_routed_at_another_path_gets_a_second_route(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    document = content.add(tenant.org, tenant.product)
    status, body = await batch(tenant, app, [route("/old", document)])
    old = body["data"]["routes"][0]
    status, body = await preview(tenant, app, [route("/new", document)])
    entry = body["data"]["routes"][0]
    assert (entry["action"], entry["issues"], entry["existingRoute"]) == (
        "create",
        ["already_routed"],
        {"id": old["id"], "path": "/old"},
    )
    status, body = await batch(tenant, app, [route("/new", document)])
    assert (status, body["data"]["createdCount"]) == (200, 1)


async def test_a_target_with_several_routes_names_the_one_with_the_lowest_path(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    document = content.add(tenant.org, tenant.product)
    status, body = await batch(tenant, app, [route("/b", document), route("/a", document), route("/c", document)])
    lowest = next(r for r in body["data"]["routes"] if r["path"] == "/a")
    status, body = await preview(tenant, app, [route("/d", document)])
    assert body["data"]["routes"][0]["existingRoute"] == {"id": lowest["id"], "path": "/a"}


async def test_preview_and_batch_agree_on_a_conflicting_import(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    kept, taken, new = (content.add(tenant.org, tenant.product) for _ in range(3))
    await batch(tenant, app, [route("/kept", kept), route("/taken", taken)])
    items = [route("/kept", kept), route("/taken", new), route("/new", new), route("/new", kept)]
    status, previewed = await preview(tenant, app, items)
    assert (previewed["data"]["createCount"], previewed["data"]["skipCount"], previewed["data"]["conflictCount"]) == (
        1,
        1,
        2,
    )
    status, batched = await batch(tenant, app, items)
    assert status == 409
    assert batched["details"] == previewed["data"]


async def test_preview_and_batch_agree_on_a_valid_import(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    kept, new = content.add(tenant.org, tenant.product), content.add(tenant.org, tenant.product)
    await batch(tenant, app, [route("/kept", kept)])
    items = [route("/kept", kept), route("/new", new)]
    status, previewed = await preview(tenant, app, items)
    status, batched = await batch(tenant, app, items)
    assert status == 200
    assert batched["data"]["createdCount"] == previewed["data"]["createCount"] == 1
    assert [r["path"] for r in batched["data"]["routes"]] == ["/kept", "/new"]


@pytest.mark.parametrize(("count", "status"), [(0, 422), (1, 200), (100, 200), (101, 422)])
async def test_routes_per_request_are_1_to_100(tenant: Tenant, content: FakeContent, count: int, status: int):
    app = await tenant.create_app()
    document = content.add(tenant.org, tenant.product)
    items = [route(f"/page-{index}", document) for index in range(count)]
    for call in (preview, batch):
        answer_status, body = await call(tenant, app, items)
        assert answer_status == status, body
        if status == 422:
            assert set(body["details"]) == {"routes"}


@pytest.mark.parametrize(
    "path",
    ["/", "/" + "a" * 2047, "a" * 2047, "/" + "页" * 2047, "/docs/%20x", "/a;b=c", "/ünïcode/päth"],
    ids=["root", "2048", "2047 without slash", "2048 multi-byte", "escape", "params", "unicode"],
)
async def test_paths_within_the_rules_are_created(tenant: Tenant, content: FakeContent, path: str):
    app = await tenant.create_app()
    status, body = await batch(tenant, app, [route(path, content.add(tenant.org, tenant.product))])
    assert status == 200, body
    assert body["data"]["routes"][0]["path"] == ("/" + path.lstrip("/"))


@pytest.mark.parametrize(
    "path",
    ["", "/" + "a" * 2048, "a" * 2048, "/a?b", "/a#b", "/a b", "/a\tb", "/a\nb", "/a\u3000b", 7, None],
    ids=[
        "empty",
        "2049",
        "2048 without slash",
        "query",
        "fragment",
        "space",
        "tab",
        "newline",
        "unicode space",
        "number",
        "null",
    ],
)
async def test_paths_outside_the_rules_are_refused(tenant: Tenant, content: FakeContent, path):
    app = await tenant.create_app()
    item = {**route("/x", content.add(tenant.org, tenant.product)), "path": path}
    for call in (preview, batch):
        status, body = await call(tenant, app, [item])
        assert status == 422
        assert set(body["details"]) == {"routes.0.path"}


@pytest.mark.parametrize(
    "change",
    [{"targetId": "not-a-uuid"}, {"targetType": "product"}, {"extra": 1}, {"targetId": None}],
)
async def test_malformed_items_are_refused(tenant: Tenant, content: FakeContent, change: dict):
    app = await tenant.create_app()
    item = {**route("/x", content.add(tenant.org, tenant.product)), **change}
    status, body = await batch(tenant, app, [item])
    assert status == 422
    assert all(key.startswith("routes.0.") for key in body["details"])


async def test_another_organizations_app_is_not_found(tenant: Tenant, other_tenant: Tenant, content: FakeContent):
    theirs = await other_tenant.create_app()
    items = [route("/x", content.add(tenant.org, tenant.product))]
    for call in (preview, batch):
        status, body = await call(tenant, theirs, items)
        assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_equivalent_spellings_of_a_path_are_one_route(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    document = content.add(tenant.org, tenant.product)
    url = f"{routes_of(app)}/batch"
    status, body = await tenant.post(url, {"routes": [route("/café", document)]})
    assert (status, body["data"]["createdCount"]) == (200, 1)
    assert body["data"]["routes"][0]["path"] == "/café"
    for spelling in ("/cafe\u0301", "/caf%C3%A9", "/caf%c3%a9/", "/x/%2e%2e/café"):
        status, body = await tenant.post(url, {"routes": [route(spelling, document)]})
        assert (status, body["data"]["createdCount"]) == (200, 0), spelling
        assert body["data"]["routes"][0]["path"] == "/café"
    other = content.add(tenant.org, tenant.product)
    status, body = await tenant.post(url, {"routes": [route("/caf%C3%A9", other)]})
    assert status == 409
    assert body["details"]["routes"][0]["issues"] == ["path_conflict"]
    status, body = await tenant.post(
        f"{routes_of(app)}/import-preview", {"routes": [route("/menu", other), route("/m%65nu", other)]}
    )
    assert status == 200
    assert body["data"]["routes"][1]["issues"] == ["duplicate_in_request"]
