"""Creating and changing from the dashboard over HTTP: apps (create, rename, config), a product
resource, a domain, one route, routes from candidates, webhook endpoints (create, edit, rotate,
test, retry). Each refusal is the API's own message beside the field it names; each write is
checked where the API stores it."""

from __future__ import annotations

import html
import re
from typing import Any

from tests.conftest import Client, Stack
from tests.factories import AppsProducts, ContentFactory, IdentityFactory, eventually
from tests.gateway.conftest import Browser
from tests.gateway.dashboard_client import api, page, signed_in, submit

FIELD_ERROR = re.compile(r'<p class="field-error" id="f-(\w+)-error">([^<]*)</p>')
SECRET = re.compile(r'id="new-webhook-secret" type="text" readonly value="(whsec_[^"]+)"')


def field_errors(text: str) -> dict[str, str]:
    return {name: html.unescape(message) for name, message in FIELD_ERROR.findall(text)}


async def refusal(client: Client, key: str, method: str, path: str, body: Any) -> dict[str, str]:
    """What the API itself answers to `body`: its details by field."""
    response = await client.request(method, path, json=body, headers={"x-api-key": key})
    answer = await response.json()
    assert response.status == 422, answer
    details: dict[str, str] = answer["details"]
    return details


async def test_an_app_is_created_renamed_configured_and_given_a_product_domain_and_routes(
    stack: Stack, identity: IdentityFactory, content: ContentFactory, apps_products: AppsProducts, browser: Browser
):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "member")))
    key = await identity.api_key(org)
    product = await identity.product(org)
    await apps_products.until_known(product)
    apps = f"/{org.slug}/apps"
    assert f'href="{apps}/new"' in await page(client, apps)

    refused = await submit(client, f"{apps}/new", {"name": "", "slug": "Not A Slug"})
    assert refused.status == 422
    expected = await refusal(client, key, "POST", "/api/v1/apps", {"name": "", "slug": "Not A Slug"})
    assert field_errors(await refused.text()) == {"name": expected["name"], "slug": expected["slug"]}
    assert 'value="Not A Slug"' in await refused.text()  # what was typed stays
    created = await submit(client, f"{apps}/new", {"name": "Docs site", "slug": ""})
    assert created.status == 303, await created.text()
    (app,) = await api(client, key, "GET", "/api/v1/apps")
    assert (app["name"], created.headers["Location"]) == ("Docs site", f"{apps}/{app['id']}")
    base = created.headers["Location"]
    assert "The app Docs site is created." in await page(client, base)

    renamed = await submit(client, f"{base}/settings", {"name": "Handbook", "slug": "handbook"})
    assert renamed.status == 303
    app = await api(client, key, "GET", f"/api/v1/apps/{app['id']}")
    assert (app["name"], app["slug"]) == ("Handbook", "handbook")
    bad_json = await submit(client, f"{base}/config", {"config": "{theme: dark"})
    assert bad_json.status == 422 and "not valid JSON" in field_errors(await bad_json.text())["config"]
    not_object = await submit(client, f"{base}/config", {"config": "[1, 2]"})
    expected = await refusal(client, key, "PATCH", f"/api/v1/apps/{app['id']}/app-config", {"config": [1, 2]})
    assert field_errors(await not_object.text())["config"] == expected["config"]
    assert (await submit(client, f"{base}/config", {"config": '{"theme": "dark"}'})).status == 303
    assert (await api(client, key, "GET", f"/api/v1/apps/{app['id']}"))["appConfig"]["config"] == {"theme": "dark"}

    form = await page(client, f"{base}/resources/new")
    assert f'<option value="{product["id"]}"' in form
    assert (await submit(client, f"{base}/resources/new", {"resourceId": product["id"]})).status == 303
    (resource,) = await api(client, key, "GET", f"/api/v1/apps/{app['id']}/resources")
    assert resource["resourceId"] == product["id"]

    bad_domain = await submit(client, f"{base}/domains/new", {"domain": "Not a host", "type": "web", "origin": ""})
    expected = await refusal(client, key, "POST", f"/api/v1/apps/{app['id']}/domains", {"domain": "Not a host"})
    assert field_errors(await bad_domain.text()) == {"domain": expected["domain"]}
    hostname = f"{org.slug}.example.org"
    added = await submit(client, f"{base}/domains/new", {"domain": hostname, "type": "web", "origin": ""})
    assert (added.status, added.headers["Location"]) == (303, f"{base}#domains-heading")
    (domain,) = await api(client, key, "GET", f"/api/v1/apps/{app['id']}/domains")
    overview = await page(client, base)
    assert domain["domain"] == hostname and f'value="{domain["verification"][0]["value"]}"' in overview

    doc = await content.document(org, product, "pricing", title="Pricing", status="published")
    other = await content.document(org, product, "setup", title="Setup", status="published")
    bad_route = await submit(client, f"{base}/routes/new", {"path": "/has space", "targetId": doc["id"]})
    assert bad_route.status == 422 and set(field_errors(await bad_route.text())) == {"path"}
    made = await submit(client, f"{base}/routes/new", {"path": "/pricing", "targetId": doc["id"]})
    assert (made.status, made.headers["Location"]) == (303, f"{base}/routes")
    candidates = await page(client, f"{base}/candidates")
    choice = f"{other['id']} /setup"
    assert f'value="{choice}"' in candidates and f'value="{doc["id"]} ' not in candidates  # routed: not offered
    turned = await submit(client, f"{base}/candidates", [("candidate", choice)])
    assert (turned.status, turned.headers["Location"]) == (303, f"{base}/routes")
    listed = await api(client, key, "GET", f"/api/v1/apps/{app['id']}/routes")
    assert sorted(route["path"] for route in listed["routes"]) == ["/pricing", "/setup"]

    viewer = await signed_in(await browser(), *await identity.account((org, "viewer")))
    for path in ("/new", f"/{app['id']}/settings", f"/{app['id']}/domains/new", f"/{app['id']}/routes/new"):
        await page(viewer, apps + path, 403)
    assert f'href="{apps}/new"' not in await page(viewer, apps)


async def test_a_webhook_endpoint_is_created_edited_rotated_tested_and_retried(
    stack: Stack, identity: IdentityFactory, browser: Browser
):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "admin")))
    key = await identity.api_key(org)
    hooks = f"/{org.slug}/settings/webhooks"
    assert f'href="{hooks}/new"' in await page(client, hooks)

    body = [("url", "not a url"), ("description", "")]
    refused = await submit(client, f"{hooks}/new", body)
    expected = await refusal(client, key, "POST", "/api/v1/webhook-endpoints", {"url": "not a url", "events": []})
    assert refused.status == 422 and "events" in expected
    assert field_errors(await refused.text()) == expected
    created = await submit(client, f"{hooks}/new", [("url", "https://example.com/hook"), ("events", "*")])
    assert created.status == 303, await created.text()
    (endpoint,) = (await api(client, key, "GET", "/api/v1/webhook-endpoints"))["endpoints"]
    location = f"{hooks}/{endpoint['id']}"
    assert created.headers["Location"] == location
    shown = await page(client, location)
    secret = SECRET.search(shown)
    assert secret is not None and "not shown again" in shown
    assert SECRET.search(await page(client, location)) is None  # once

    edited = [
        ("url", "https://example.com/other"),
        ("description", "CRM sync"),
        ("enabled", "true"),
        ("events", "app.created"),
        ("events", "app.deleted"),
    ]
    assert (await submit(client, location, edited)).status == 303
    stored = await api(client, key, "GET", f"/api/v1/webhook-endpoints/{endpoint['id']}")
    assert (stored["url"], stored["description"], sorted(stored["events"])) == (
        "https://example.com/other",
        "CRM sync",
        ["app.created", "app.deleted"],
    )
    none_chosen = await submit(client, location, [("url", "https://example.com/other"), ("enabled", "true")])
    assert none_chosen.status == 422 and "events" in field_errors(await none_chosen.text())

    rotated = await submit(client, location, {}, action=f"{location}/rotate-secret")
    assert rotated.status == 303
    new_secret = SECRET.search(await page(client, location))
    assert new_secret is not None and new_secret.group(1) != secret.group(1)

    tested = await submit(client, location, {}, action=f"{location}/test")
    assert tested.status == 303
    (delivery,) = (await api(client, key, "GET", f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries"))[
        "deliveries"
    ]
    assert delivery["eventType"] == "ping"

    async def attempted() -> bool:  # a delivery is offered again once its first attempt is recorded
        deliveries = await api(client, key, "GET", f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries")
        return bool(deliveries["deliveries"][0]["attempts"])

    await eventually(attempted, within=30)
    listed = await page(client, location)
    assert "A test event (ping) is on its way" in listed and f"/deliveries/{delivery['id']}/retry" in listed
    retried = await submit(client, location, {}, action=f"{location}/deliveries/{delivery['id']}/retry")
    assert retried.status == 303
    assert "The delivery is sent again now." in await page(client, location)

    viewer = await signed_in(await browser(), *await identity.account((org, "viewer")))
    assert "Rotate secret" not in await page(viewer, location)
    await page(viewer, f"{hooks}/new", 403)


async def test_an_address_that_is_no_page_is_a_styled_page_never_json(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "member")))
    for path in ("/no-such-page", "/settings/no-such-page", "/apps/3f2b8c1e-5a7d-4e9b-8c21-6d0f4a9e7b35"):
        response = await client.get(f"/{org.slug}{path}", allow_redirects=False)
        text = await response.text()
        assert (response.status, response.content_type) == (404, "text/html"), path
        assert "<h1" in text and '"ok":false' not in text and 'href="/assets/' in text, path
    moved = {
        "/settings": "/settings/members",
        "/members": "/settings/members",
        "/apps/": "/apps",
        "/runs/?page=2": "/runs?page=2",
    }
    for path, target in moved.items():
        response = await client.get(f"/{org.slug}{path}", allow_redirects=False)
        assert response.status in (301, 303) and response.headers["Location"] == f"/{org.slug}{target}", path
    stranger = await client.get("/another-organization/settings", allow_redirects=False)
    assert (stranger.status, stranger.content_type) == (404, "text/html")
    past = await page(client, f"/{org.slug}/runs?page=7")
    assert "Page 7 is past the end: there is 1 page of 0 runs." in past
