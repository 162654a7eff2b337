"""An app's routes list, deletes, restore, domain verification and llms.txt preview in the
dashboard over HTTP: what each role sees and may do, CSRF on every form, 404 for another
organization, and each write checked where the API stores it."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from gateway.dashboard import apps as app_pages
from libs.contract.parts import APPS
from tests.apps.fake_dns import FakeDns, dns_environ, start_fake_dns
from tests.apps.support import base_url
from tests.conftest import Client, Stack, build_app
from tests.factories import AppsProducts, ContentFactory, IdentityFactory, Org
from tests.gateway.conftest import Browser
from tests.gateway.dashboard_client import api, page, signed_in, submit, token_of

NEXT = re.compile(r'<a class="button" href="([^"]+)" rel="next">Next</a>')
ASSET = re.compile(r'href="(/assets/[0-9a-f]{16}/dashboard\.css)"')


async def site(
    client: Client, identity: IdentityFactory, content: ContentFactory, apps_products: AppsProducts, org: Org
) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """An API key, an app with a product resource, and three routes to published pages."""
    product = await identity.product(org)
    await apps_products.until_known(product)
    key = await identity.api_key(org)
    app = await api(client, key, "POST", "/api/v1/apps", json={"name": "Handbook site"})
    await api(client, key, "POST", f"/api/v1/apps/{app['id']}/resources", json={"resourceId": product["id"]})
    routes = []
    for slug in ("pricing", "docs-intro", "docs-setup"):
        doc = await content.document(org, product, slug, title=slug.title(), status="published")
        routes.append({"path": "/" + slug.replace("-", "/"), "targetId": doc["id"], "targetType": "product_document"})
    created = await api(client, key, "POST", f"/api/v1/apps/{app['id']}/routes/batch", json={"routes": routes})
    return key, app, created["routes"]


async def test_routes_are_listed_by_prefix_a_page_at_a_time_and_deleted_after_a_confirm(
    stack: Stack,
    identity: IdentityFactory,
    content: ContentFactory,
    apps_products: AppsProducts,
    browser: Browser,
    monkeypatch: pytest.MonkeyPatch,
):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "member")))
    key, app, routes = await site(client, identity, content, apps_products, org)
    base = f"/{org.slug}/apps/{app['id']}"
    monkeypatch.setattr(app_pages, "ROUTES_PAGE", 2)

    first = await page(client, f"{base}/routes")
    assert "/pricing" in first and "/docs/intro" in first and "/docs/setup" not in first  # oldest first
    assert 'href="https://' not in first  # no verified domain: no page to link
    following = NEXT.search(first)
    assert following is not None
    second = await page(client, html.unescape(following.group(1)))
    assert "/docs/setup" in second and "/pricing" not in second and 'rel="next" aria-disabled="true"' in second
    found = await page(client, f"{base}/routes?pathPrefix=/docs/")
    assert "/docs/intro" in found and "/docs/setup" in found and "/pricing" not in found
    assert "No routes start with “/nothing”." in await page(client, f"{base}/routes?pathPrefix=/nothing")
    assert "cursor" in await page(client, f"{base}/routes?cursor=nonsense", 422)

    pricing = next(route for route in routes if route["path"] == "/pricing")
    delete = f"{base}/routes/{pricing['id']}/delete"
    assert f'href="{delete}"' in first
    confirm = await page(client, delete)
    assert "Delete this route?" in confirm and "/pricing" in confirm
    refused = await client.post(delete, data={"csrf_token": "forged"}, allow_redirects=False)
    assert refused.status == 403
    assert len((await api(client, key, "GET", f"/api/v1/apps/{app['id']}/routes"))["routes"]) == 3
    deleted = await submit(client, delete, {})
    assert (deleted.status, deleted.headers["Location"]) == (303, f"{base}/routes")
    listed = await api(client, key, "GET", f"/api/v1/apps/{app['id']}/routes")
    assert [route["path"] for route in listed["routes"]] == ["/docs/intro", "/docs/setup"]
    assert "The route /pricing is deleted." in await page(client, f"{base}/routes")
    await page(client, delete, 404)

    viewer = await signed_in(await browser(), *await identity.account((org, "viewer")))
    intro = f"{base}/routes/{routes[1]['id']}/delete"
    assert "/docs/intro" in await page(viewer, f"{base}/routes") and "Delete" not in await page(
        viewer, f"{base}/routes"
    )
    await page(viewer, intro, 403)
    assert (await viewer.post(intro, data={"csrf_token": await token_of(viewer, f"{base}/routes")})).status == 403
    stranger = await signed_in(await browser(), *await identity.account((await identity.organization(), "owner")))
    await page(stranger, f"{base}/routes", 404)
    assert len((await api(client, key, "GET", f"/api/v1/apps/{app['id']}/routes"))["routes"]) == 2


async def test_an_app_is_deleted_after_a_confirm_and_restored_from_the_apps_list(
    stack: Stack, identity: IdentityFactory, content: ContentFactory, apps_products: AppsProducts, browser: Browser
):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "admin")))
    key, app, _ = await site(client, identity, content, apps_products, org)
    base = f"/{org.slug}/apps/{app['id']}"
    viewer = await signed_in(await browser(), *await identity.account((org, "viewer")))
    assert "Delete app" not in await page(viewer, base)
    await page(viewer, f"{base}/delete", 403)

    assert f'href="{base}/delete"' in await page(client, base)
    assert "Delete this app?" in await page(client, f"{base}/delete")
    deleted = await submit(client, f"{base}/delete", {})
    assert (deleted.status, deleted.headers["Location"]) == (303, f"/{org.slug}/apps?deleted={app['id']}")
    missing = await client.get(f"/api/v1/apps/{app['id']}", headers={"x-api-key": key})
    assert missing.status == 404
    listing = await page(client, deleted.headers["Location"])
    assert "The app Handbook site is deleted." in listing and f'action="{base}/restore"' in listing
    assert "Recently deleted" in listing and f'<a href="{base}">Handbook site</a>' in listing
    assert '<h2><a href="' not in listing  # no live app card
    (listed,) = (await api(client, key, "GET", "/api/v1/deleted-apps"))["items"]
    assert (listed["id"], listed["deletedAt"] is not None) == (app["id"], True)
    restorable = datetime.fromisoformat(listed["restorableUntil"]) - datetime.fromisoformat(listed["deletedAt"])
    assert restorable == timedelta(days=30)
    gone = await page(client, base, 404)  # its own address says what happened and offers the restore
    assert "Handbook site was deleted" in gone and f'action="{base}/restore"' in gone
    assert "Restore app" not in await page(viewer, base, 404)

    restored = await submit(client, deleted.headers["Location"], {}, action=f"{base}/restore")
    assert (restored.status, restored.headers["Location"]) == (303, base)
    assert (await api(client, key, "GET", f"/api/v1/apps/{app['id']}"))["name"] == "Handbook site"
    assert len((await api(client, key, "GET", f"/api/v1/apps/{app['id']}/routes"))["routes"]) == 3
    assert "The app Handbook site is restored." in await page(client, base)
    assert (await api(client, key, "GET", "/api/v1/deleted-apps"))["items"] == []
    again = await submit(client, f"/{org.slug}/apps", {}, action=f"{base}/restore")
    assert again.status == 409 and "not deleted" in await again.text()


async def test_domains_and_resources_are_removed_after_a_confirm(
    stack: Stack, identity: IdentityFactory, content: ContentFactory, apps_products: AppsProducts
):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    key, app, _ = await site(client, identity, content, apps_products, org)
    base = f"/{org.slug}/apps/{app['id']}"
    hostname = f"{org.slug}.example.com"
    domain = await api(client, key, "POST", f"/api/v1/apps/{app['id']}/domains", json={"domain": hostname})
    (resource,) = await api(client, key, "GET", f"/api/v1/apps/{app['id']}/resources")

    overview = await page(client, base)
    assert f'href="{base}/domains/{domain["id"]}/delete"' in overview
    assert f'href="{base}/resources/{resource["id"]}/delete"' in overview
    assert hostname in await page(client, f"{base}/domains/{domain['id']}/delete")
    removed = await submit(client, f"{base}/domains/{domain['id']}/delete", {})
    assert (removed.status, removed.headers["Location"]) == (303, base)
    assert await api(client, key, "GET", f"/api/v1/apps/{app['id']}/domains") == []
    await page(client, f"{base}/domains/{domain['id']}/delete", 404)

    assert "Remove this product from the app?" in await page(client, f"{base}/resources/{resource['id']}/delete")
    removed = await submit(client, f"{base}/resources/{resource['id']}/delete", {})
    assert removed.status == 303
    assert await api(client, key, "GET", f"/api/v1/apps/{app['id']}/resources") == []
    assert "The product is removed from the app." in await page(client, base)


@pytest.fixture
async def verifying(stack: Stack, aiohttp_server: Any) -> AsyncIterator[tuple[Client, FakeDns]]:
    """A gateway whose apps service asks a DNS server of the test's for TXT records."""
    dns = await start_fake_dns()
    apps = build_app(APPS, stack.part_environ(APPS, **dns_environ(dns)))
    server = await aiohttp_server(apps)
    client = await stack.start_gateway({"APPS_URL": base_url(server)})
    yield client, dns
    await client.close()
    dns.close()


async def test_a_domain_shows_its_record_until_verified_and_the_app_its_llms_txt(
    verifying: tuple[Client, FakeDns],
    identity: IdentityFactory,
    content: ContentFactory,
    apps_products: AppsProducts,
):
    gateway, dns = verifying
    org = await identity.organization()
    client = await signed_in(gateway, *await identity.account((org, "member")))
    key, app, _ = await site(client, identity, content, apps_products, org)
    base = f"/{org.slug}/apps/{app['id']}"
    assert "No llms.txt yet" in await page(client, base)  # no web domain yet: the API's 409, said

    hostname = f"{org.slug}.example.org"
    domain = await api(client, key, "POST", f"/api/v1/apps/{app['id']}/domains", json={"domain": hostname})
    (record,) = domain["verification"]
    overview = await page(client, base)
    assert "not verified" in overview and f'value="{record["name"]}"' in overview
    assert f'value="{record["value"]}"' in overview and 'data-copy="txt-value-1"' in overview
    assert "No llms.txt yet" in overview  # an unverified claim is no address of the app's pages
    for path in ("llms.txt", "llms-full.txt", "sitemap.xml"):
        assert f'href="/api/v1/apps/{app["id"]}/{path}"' in overview

    verify = f"{base}/domains/{domain['id']}/verify"
    failed = await submit(client, base, {}, action=verify)
    assert failed.status == 303
    shown = await page(client, base)
    assert "is not verified yet" in shown and f"No TXT record was found at {record['name']}" in shown
    assert "NO_RECORD" not in shown and "`verification`" not in shown  # words for a person, no field names
    dns.publish(record["name"], record["value"])
    assert (await submit(client, base, {}, action=verify)).status == 303
    shown = await page(client, base)
    assert f"The domain {hostname} is verified." in shown and "badge-verified" in shown
    assert record["value"] not in shown and f'action="{verify}"' not in shown
    assert "# Handbook site" in shown and f"https://{hostname}/pricing" in shown  # llms.txt preview
    (stored,) = await api(client, key, "GET", f"/api/v1/apps/{app['id']}/domains")
    assert stored["verified"] is True
    for path in ("", "llms.txt", "sitemap.xml", "robots.txt"):  # where the edge serves it now
        assert f'href="https://{hostname}/{path}"' in shown
    assert f'href="https://{hostname}/pricing"' in await page(client, f"{base}/routes")


async def test_dashboard_files_are_served_by_content_hash_and_cached_for_a_year(stack: Stack):
    login = await page(stack.gateway, "/login")
    found = ASSET.search(login)
    assert found is not None and "/static/" not in login
    response = await stack.gateway.get(found.group(1), headers={"Accept-Encoding": "br"})
    assert response.status == 200 and response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response.headers["Content-Encoding"] == "br" and ".topbar" in await response.text()
    stale = await stack.gateway.get("/assets/0000000000000000/dashboard.css")
    assert stale.status == 404
    assert (await stack.gateway.get("/static/dashboard.css")).status == 404
