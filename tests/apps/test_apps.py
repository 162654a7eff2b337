"""Apps through the gateway: create, list, get, update, and the app config."""

from __future__ import annotations

import pytest

from services.apps.schemas import responses as schemas
from tests.apps.support import Tenant, assert_shape

APPS = "/api/v1/apps"


async def test_create_answers_the_app_with_an_empty_config(tenant: Tenant):
    status, body = await tenant.post(APPS, {"name": "Docs site", "slug": "docs", "metadata": {"team": "web"}})
    assert status == 201
    app = body["data"]
    assert_shape(schemas.AppWithConfig, app)
    assert (app["name"], app["slug"], app["metadata"], app["organizationId"]) == (
        "Docs site",
        "docs",
        {"team": "web"},
        tenant.org.id,
    )
    config = app["appConfig"]
    assert (config["appId"], config["organizationId"], config["productId"], config["config"]) == (
        app["id"],
        tenant.org.id,
        None,
        {},
    )
    status, stored = await tenant.get(f"{APPS}/{app['id']}")
    assert status == 200
    assert stored["data"]["appConfig"] == config


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Docs Site", "docs-site"),
        ("  Café  Menu!! 2026 ", "cafe-menu-2026"),
        ("a" * 120, "a" * 120),
        ("\ufb01 " * 60, "-".join(["fi"] * 40)),  # the ligature "fi" doubles in length: cut, no end hyphen
    ],
)
async def test_slug_is_derived_from_the_name_when_absent(tenant: Tenant, name: str, slug: str):
    app = await tenant.create_app(name=name)
    assert app["slug"] == slug


async def test_a_name_without_letters_or_digits_gets_the_slug_app_once(tenant: Tenant):
    app = await tenant.create_app(name="日本語")
    assert app["slug"] == "app"
    status, body = await tenant.post(APPS, {"name": "中文"})
    assert (status, body["message"]) == (409, "an app with the slug 'app' already exists")
    other = await tenant.create_app(name="中文", slug="chinese")
    assert other["slug"] == "chinese"


@pytest.mark.parametrize("name", ["a", "a" * 120])
async def test_name_length_boundaries_are_accepted(tenant: Tenant, name: str):
    app = await tenant.create_app(name=name, slug="x")
    assert app["name"] == name


@pytest.mark.parametrize("name", ["", "a" * 121])
async def test_name_outside_1_to_120_is_refused(tenant: Tenant, name: str):
    status, body = await tenant.post(APPS, {"name": name, "slug": "x"})
    assert status == 422
    assert set(body["details"]) == {"name"}


@pytest.mark.parametrize("slug", ["a", "a-b", "0-9", "a" * 120])
async def test_valid_slugs_are_accepted(tenant: Tenant, slug: str):
    app = await tenant.create_app(slug=slug)
    assert app["slug"] == slug


@pytest.mark.parametrize(
    "slug",
    [
        "",
        "a" * 121,
        "Docs",
        "docs-",
        "-docs",
        "do--cs",
        "do_cs",
        "do cs",
        "docs\n",
        "dócs",
        "docs\u212a",  # Kelvin sign, which str.lower() would turn into "k"
        "ｄｏｃｓ",  # fullwidth letters
    ],
)
async def test_hostile_slugs_are_refused(tenant: Tenant, slug: str):
    status, body = await tenant.post(APPS, {"name": "Docs", "slug": slug})
    assert status == 422
    assert set(body["details"]) == {"slug"}
    status, listed = await tenant.get(APPS)
    assert listed["data"] == []


async def test_slug_taken_by_a_live_app_of_the_organization_is_a_conflict(tenant: Tenant):
    await tenant.create_app(name="Docs")
    status, body = await tenant.post(APPS, {"name": "Docs"})
    assert status == 409
    assert body["code"] == "CONFLICT"
    status, listed = await tenant.get(APPS)
    assert len(listed["data"]) == 1


async def test_the_same_slug_may_live_in_two_organizations(tenant: Tenant, other_tenant: Tenant):
    mine = await tenant.create_app(slug="docs")
    theirs = await other_tenant.create_app(slug="docs")
    assert mine["slug"] == theirs["slug"] == "docs"


@pytest.mark.parametrize("body", [{"name": 5}, {"name": "x", "metadata": []}, {"name": "x", "metadata": "a"}, {}])
async def test_create_refuses_wrong_types(tenant: Tenant, body: dict):
    status, answer = await tenant.post(APPS, body)
    assert status == 422
    assert answer["code"] == "VALIDATION_FAILED"


async def test_list_has_the_organizations_apps_without_config_or_resources(tenant: Tenant, other_tenant: Tenant):
    first = await tenant.create_app(name="One")
    second = await tenant.create_app(name="Two")
    await other_tenant.create_app(name="Theirs")
    status, body = await tenant.get(APPS)
    assert status == 200
    assert_shape(schemas.App, body["data"], many=True)
    assert [app["id"] for app in body["data"]] == [first["id"], second["id"]]


async def test_get_has_config_and_resources(tenant: Tenant):
    app = await tenant.create_app()
    status, body = await tenant.get(f"{APPS}/{app['id']}")
    assert status == 200
    assert_shape(schemas.AppDetail, body["data"])
    assert body["data"]["resources"] == []


@pytest.mark.parametrize("app_id", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
async def test_get_unknown_app_is_not_found(tenant: Tenant, app_id: str):
    status, body = await tenant.get(f"{APPS}/{app_id}")
    assert status == 404
    assert body["code"] == "NOT_FOUND"


async def test_another_organizations_app_is_not_found(tenant: Tenant, other_tenant: Tenant):
    theirs = await other_tenant.create_app()
    for method, path, json in [
        ("GET", f"{APPS}/{theirs['id']}", None),
        ("PATCH", f"{APPS}/{theirs['id']}", {"name": "Mine now"}),
        ("PATCH", f"{APPS}/{theirs['id']}/app-config", {"config": {}}),
    ]:
        status, body = await tenant.call(method, path, json)
        assert (status, body["code"]) == (404, "NOT_FOUND")
    status, body = await other_tenant.get(f"{APPS}/{theirs['id']}")
    assert body["data"]["name"] == theirs["name"]


async def test_update_changes_only_the_given_fields(tenant: Tenant):
    app = await tenant.create_app(name="Docs", metadata={"a": 1})
    status, body = await tenant.patch(f"{APPS}/{app['id']}", {"slug": "handbook"})
    assert status == 200
    assert_shape(schemas.App, body["data"])
    assert (body["data"]["name"], body["data"]["slug"], body["data"]["metadata"]) == ("Docs", "handbook", {"a": 1})
    assert body["data"]["updatedAt"] > app["updatedAt"]
    status, stored = await tenant.get(f"{APPS}/{app['id']}")
    assert stored["data"]["slug"] == "handbook"


async def test_update_to_a_taken_slug_is_a_conflict(tenant: Tenant):
    await tenant.create_app(slug="docs")
    app = await tenant.create_app(slug="blog")
    status, body = await tenant.patch(f"{APPS}/{app['id']}", {"slug": "docs"})
    assert status == 409
    status, stored = await tenant.get(f"{APPS}/{app['id']}")
    assert stored["data"]["slug"] == "blog"


async def test_an_update_without_fields_changes_nothing(tenant: Tenant):
    app = await tenant.create_app()
    status, body = await tenant.patch(f"{APPS}/{app['id']}", {})
    assert status == 200
    assert body["data"] == {key: value for key, value in app.items() if key != "appConfig"}


@pytest.mark.parametrize("body", [{"slug": "Bad"}, {"name": ""}, {"metadata": None}, {"metadata": []}, {"id": "x"}])
async def test_update_refuses_invalid_bodies(tenant: Tenant, body: dict):
    app = await tenant.create_app()
    status, answer = await tenant.patch(f"{APPS}/{app['id']}", body)
    assert status == 422
    assert answer["code"] == "VALIDATION_FAILED"


async def test_config_is_replaced(tenant: Tenant):
    app = await tenant.create_app()
    config = {"theme": {"color": "teal"}, "nav": [1, 2]}
    status, body = await tenant.patch(f"{APPS}/{app['id']}/app-config", {"config": config})
    assert status == 200
    assert_shape(schemas.AppConfig, body["data"])
    assert body["data"]["config"] == config
    assert body["data"]["id"] == app["appConfig"]["id"]
    status, stored = await tenant.get(f"{APPS}/{app['id']}")
    assert stored["data"]["appConfig"]["config"] == config


@pytest.mark.parametrize("config", [[], "x", 1, None, True])
async def test_config_that_is_not_an_object_is_refused(tenant: Tenant, config):
    app = await tenant.create_app()
    status, body = await tenant.patch(f"{APPS}/{app['id']}/app-config", {"config": config})
    assert status == 422
    assert set(body["details"]) == {"config"}
    status, stored = await tenant.get(f"{APPS}/{app['id']}")
    assert stored["data"]["appConfig"]["config"] == {}


async def test_numbers_of_any_size_in_metadata_and_config_come_back(tenant: Tenant):
    """JSON numbers have no size limit; jsonb keeps 1.7976931348623157e308 exactly, as a 309-digit integer."""
    app = await tenant.create_app(metadata={"huge": 1.7976931348623157e308, "tiny": 5e-324})
    status, _ = await tenant.patch(f"{APPS}/{app['id']}/app-config", {"config": {"limit": -1.5e30}})
    assert status == 200
    status, body = await tenant.get(f"{APPS}/{app['id']}")
    assert status == 200
    assert body["data"]["metadata"] == {"huge": 17976931348623157 * 10**292, "tiny": 5e-324}
    assert body["data"]["appConfig"]["config"] == {"limit": -15 * 10**29}
