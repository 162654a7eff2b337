"""`If-Match` on every write, through the gateway: a write that takes it honours it (412 naming the
current ETag, nothing written); any other write refuses the header (400) rather than ignore it."""

from __future__ import annotations

import pytest

from tests.apps.support import FakeContent, Tenant, route, routes_of
from tests.apps.test_versions import make_route, send

STALE = '"0123456789abcdef0123456789abcdef"'


async def test_a_stale_if_match_does_not_delete_an_app(tenant: Tenant):
    app = await tenant.create_app(name="Kept")
    path = f"/api/v1/apps/{app['id']}"
    seen = (await send(tenant, "GET", path))[2]["ETag"]
    await send(tenant, "PATCH", path, {"name": "Changed meanwhile"})
    current = (await send(tenant, "GET", path))[2]["ETag"]
    status, body, _ = await send(tenant, "DELETE", path, If_Match=seen)
    assert (status, body["code"], body["details"]) == (412, "PRECONDITION_FAILED", {"etag": current})
    status, body = await tenant.get(path)
    assert status == 200 and body["data"]["name"] == "Changed meanwhile"
    status, body, _ = await send(tenant, "DELETE", path, If_Match=current)
    assert status == 200 and body["data"]["deletedAt"]
    assert (await tenant.get(path))[0] == 404


async def test_a_stale_if_match_does_not_delete_a_route(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    made = await make_route(tenant, content, app, "/guide")
    path = f"{routes_of(app)}/{made['id']}"
    seen = (await send(tenant, "GET", path))[2]["ETag"]
    status, _, changed = await send(tenant, "PATCH", path, {"path": "/guide-2"}, If_Match=seen)
    assert status == 200
    status, body, _ = await send(tenant, "DELETE", path, If_Match=seen)
    assert (status, body["details"]) == (412, {"etag": changed["ETag"]})
    assert (await tenant.get(path))[0] == 200
    status, _, _ = await send(tenant, "DELETE", path, If_Match=changed["ETag"])
    assert status == 200 and (await tenant.get(path))[0] == 404


@pytest.mark.parametrize("header", ["If-Match", "If-None-Match", "If-Unmodified-Since"])
async def test_a_write_that_cannot_check_a_precondition_refuses_it(tenant: Tenant, content: FakeContent, header: str):
    app = await tenant.create_app()
    document = content.add(tenant.org, tenant.product)
    path = f"/api/v1/apps/{app['id']}"
    await send(tenant, "DELETE", path)
    value = "Sat, 28 Nov 2026 00:00:00 GMT" if header == "If-Unmodified-Since" else STALE
    refused = [
        ("POST", f"{path}/restore", None),
        ("POST", f"{routes_of(app)}/batch", {"routes": [route("/x", document)]}),
        ("PATCH", "/api/v1/site/pages", {"productId": tenant.product["id"], "pages": []}),
        ("DELETE", "/api/v1/site/pages", {"productId": tenant.product["id"], "ids": []}),
    ]
    for method, target, body in refused:
        status, answer, _ = await send(tenant, method, target, body, **{header.replace("-", "_"): value})
        assert (status, answer["code"]) == (400, "BAD_REQUEST"), (method, target, answer)
        assert header in answer["details"], answer
    assert (await tenant.get(path))[0] == 404  # the restore did not run


async def test_if_none_match_on_a_write_is_refused_but_reads_keep_it(tenant: Tenant):
    app = await tenant.create_app()
    path = f"/api/v1/apps/{app['id']}"
    current = (await send(tenant, "GET", path))[2]["ETag"]
    assert (await send(tenant, "GET", path, If_None_Match=current))[0] == 304
    status, _, _ = await send(tenant, "PATCH", path, {"name": "x"}, If_None_Match="*")
    assert status == 400
