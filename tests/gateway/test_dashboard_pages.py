"""The organization's dashboard pages over HTTP: what each role sees and may do, 404 for another
organization, CSRF on every form, and writes checked where the API stores them."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from gateway import queries
from gateway.identity.auth import key_queries
from gateway.identity.oauth import queries as oauth_queries
from libs.common.db import cursor, transaction
from tests.conftest import Stack
from tests.factories import AppsProducts, ContentFactory, DomainFactory, IdentityFactory, SimulationFactory
from tests.gateway.conftest import Browser
from tests.gateway.dashboard_client import api, page, secret_in, shown_once, signed_in, submit


async def test_every_page_of_an_organization_is_404_to_anyone_else(
    stack: Stack, identity: IdentityFactory, browser: Browser
):
    mine, theirs = await identity.organization(), await identity.organization()
    product = await identity.product(theirs)
    client = await signed_in(stack.gateway, *await identity.account((mine, "owner")))
    for path in (
        "",
        "/products",
        f"/products/{product['slug']}",
        "/apps",
        "/runs",
        "/settings/members",
        "/settings/security",
        "/settings/api-keys",
    ):
        assert "Page not found" in await page(client, f"/{theirs.slug}{path}", 404)
        assert "Page not found" in await page(client, f"/no-such-org{path}", 404)
    # Their product under my organization's address is 404 too, never its pages.
    await page(client, f"/{mine.slug}/products/{product['slug']}", 404)
    response = await (await browser()).get(f"/{mine.slug}/runs", allow_redirects=False)
    assert (response.status, response.headers["Location"]) == (303, f"/login?next=/{mine.slug}/runs")


async def test_the_landing_page_shows_each_section_the_role_reads(
    stack: Stack, identity: IdentityFactory, simulations: SimulationFactory
):
    org = await identity.organization()
    await identity.product(org, "Docs site")
    environment = await simulations.environment(org)
    await simulations.run(org, environment, passed=True, overallScore=0.9)
    client = await signed_in(stack.gateway, *await identity.account((org, "viewer")))
    landing = await page(client, f"/{org.slug}")
    for text in ("Docs site", "Simulation runs", "Members", f'href="/{org.slug}/products"', f'href="/{org.slug}/apps"'):
        assert text in landing
    assert 'aria-current="page">Overview' in landing


async def test_sign_in_lands_on_the_organization_last_used(stack: Stack, identity: IdentityFactory):
    first, second = await identity.organization(), await identity.organization()
    email, password = await identity.account((first, "owner"), (second, "viewer"))
    client = await signed_in(stack.gateway, email, password)
    await page(client, f"/{second.slug}/runs")  # visiting an organization makes it the one in use
    await submit(client, f"/{second.slug}", {}, action="/logout")
    response = await submit(client, "/login", {"email": email, "password": password})
    assert (response.status, response.headers["Location"]) == (303, f"/{second.slug}")


async def test_site_pages_list_filters_and_a_document_is_edited_with_a_preview(
    stack: Stack, identity: IdentityFactory, content: ContentFactory, domains: DomainFactory, browser: Browser
):
    org = await identity.organization()
    product = await identity.product(org)
    key = await identity.api_key(org)
    app = await api(stack.gateway, key, "POST", "/api/v1/apps", json={"name": "Site"})
    docs_domain = await domains.create(org, app_id=app["id"])
    hostname = docs_domain["domain"]
    doc = await content.document(org, product, "docs/start", title="Getting started", content="# Hello")
    await content.document(org, product, "blog/news", title="News", status="published")
    base = f"/{org.slug}/products/{product['slug']}"

    viewer = await signed_in(stack.gateway, *await identity.account((org, "viewer")))
    listing = await page(viewer, f"{base}?query=start")
    assert "Getting started" in listing and "News" not in listing and ">Edit<" not in listing
    assert "News" in await page(viewer, f"{base}?status=published") and "Getting started" not in await page(
        viewer, f"{base}?status=published"
    )
    assert "<h1>Hello</h1>" in await page(viewer, f"{base}/pages/{doc['id']}")
    assert "this credential lacks the scope content:write" in await page(viewer, f"{base}/pages/{doc['id']}/edit", 403)
    await page(viewer, f"{base}?sort=sideways", 422)

    editor = await signed_in(await browser(), *await identity.account((org, "member")))
    edit = f"{base}/pages/{doc['id']}/edit"
    form = await page(editor, edit)
    assert 'name="content"' in form
    fields = {
        "title": "Start here",
        "filePath": "/docs/start",
        "content": "**bold** <script>x</script>",
        "priority": "80",
        "status": "published",
        "tags": "guide, intro",
    }
    preview = await submit(editor, edit, {**fields, "intent": "preview"})
    text = await preview.text()
    assert preview.status == 200 and "<strong>bold</strong> &lt;script&gt;" in text and "<script>x" not in text
    stored = await api(editor, key, "GET", f"/api/v1/content/{doc['id']}")
    assert stored["title"] == "Getting started"  # a preview saves nothing
    assert hostname in form

    fields = {**fields, "domains": docs_domain["id"], "canonical": docs_domain["id"]}
    saved = await submit(editor, edit, {**fields, "intent": "save"})
    assert (saved.status, saved.headers["Location"]) == (303, f"{base}/pages/{doc['id']}")
    stored = await api(editor, key, "GET", f"/api/v1/content/{doc['id']}")
    assert (stored["title"], stored["content"], stored["priority"], stored["status"], stored["tags"]) == (
        "Start here",
        "**bold** <script>x</script>",
        80,
        "published",
        ["guide", "intro"],
    )
    shown = await page(editor, f"{base}/pages/{doc['id']}")
    assert f'{hostname} <small class="muted">canonical</small>' in shown
    assert f"https://{hostname}/docs/start" in shown  # the canonical domain makes its address
    refused = await submit(editor, edit, {**fields, "priority": "high", "intent": "save"})
    assert refused.status == 422 and "Must be a number from 0 to 100." in await refused.text()
    taken = await submit(editor, edit, {**fields, "filePath": "/blog/news", "intent": "save"})
    assert taken.status == 409
    no_token = await editor.post(edit, data={**fields, "intent": "save"}, allow_redirects=False)
    assert no_token.status == 403 and "This form has expired" in await no_token.text()


async def test_apps_routes_import_is_previewed_before_anything_is_created(
    stack: Stack, identity: IdentityFactory, content: ContentFactory, apps_products: AppsProducts, browser: Browser
):
    org = await identity.organization()
    product = await identity.product(org)
    await apps_products.until_known(product)
    doc = await content.document(org, product, "pricing", title="Pricing", status="published")
    other = await content.document(org, product, "about", title="About us", status="published")
    key = await identity.api_key(org)
    client = await signed_in(stack.gateway, *await identity.account((org, "admin")))
    app = await api(client, key, "POST", "/api/v1/apps", json={"name": "Marketing site"})
    await api(client, key, "POST", f"/api/v1/apps/{app['id']}/resources", json={"resourceId": product["id"]})
    base = f"/{org.slug}/apps/{app['id']}"
    assert "Marketing site" in await page(client, f"/{org.slug}/apps")
    assert product["name"] in await page(client, base)
    candidates = await page(client, f"{base}/candidates")
    assert "Pricing" in candidates and "About us" in candidates

    lacking = await submit(client, f"{base}/import", {"csv": "path,target\n/x,y\n", "intent": "preview"})
    assert lacking.status == 422 and "lacks the column targetId" in await lacking.text()
    csv = f"path,targetId\n/pricing,{doc['id']}\n/about,{other['id']}\n"
    preview = await submit(client, f"{base}/import", {"csv": csv, "intent": "preview"})
    text = await preview.text()
    assert preview.status == 200 and "2 to create" in text and "Create 2 routes" in text
    assert "No routes yet." in await page(client, f"{base}/routes")  # nothing created yet

    unseen = await submit(client, f"{base}/import", {"csv": csv, "intent": "create"})  # not previewed: preview
    assert unseen.status == 200 and "Create 2 routes" in await unseen.text()
    digest = re.search(r'name="previewed" value="([0-9a-f]+)"', text)
    assert digest is not None
    created = await submit(client, f"{base}/import", {"csv": csv, "intent": "create", "previewed": digest.group(1)})
    assert (created.status, created.headers["Location"]) == (303, f"{base}/routes")
    routes = await page(client, f"{base}/routes")
    assert "2 routes created." in routes and "/pricing" in routes and "/about" in routes
    assert "/about" not in await page(client, f"{base}/routes?pathPrefix=/pric")

    listed = await api(client, key, "GET", f"/api/v1/apps/{app['id']}/route-candidates?includeRouted=true")
    route = next(item["existingRoute"] for item in listed["candidates"] if item["targetId"] == doc["id"])
    edit = f"{base}/routes/{route['id']}/edit"
    assert 'value="/pricing"' in await page(client, edit)  # the route as the API answers it
    saved = await submit(client, edit, {"path": "/plans", "targetId": doc["id"]})
    assert saved.status == 303
    assert "/plans" in await page(client, f"{base}/routes")

    viewer = await signed_in(await browser(), *await identity.account((org, "viewer")))
    assert "Import routes" not in await page(viewer, base) and ">Edit<" not in await page(viewer, f"{base}/routes")
    await page(viewer, f"{base}/import", 403)


async def test_runs_are_listed_filtered_and_shown(
    stack: Stack, identity: IdentityFactory, simulations: SimulationFactory
):
    org, other = await identity.organization(), await identity.organization()
    environment = await simulations.environment(org, "chromium")
    passed = await simulations.run(org, environment, passed=True, overallScore=0.75)
    await simulations.run(org, environment, status="failed", passed=False)
    theirs = await simulations.run(other, await simulations.environment(other))
    client = await signed_in(stack.gateway, *await identity.account((org, "member")))
    listing = await page(client, f"/{org.slug}/runs")
    assert "2 runs · page 1 of 1" in listing
    assert "1 run · page 1 of 1" in await page(client, f"/{org.slug}/runs?passed=true")
    assert "1 run · page 1 of 1" in await page(client, f"/{org.slug}/runs?status=failed")
    detail = await page(client, f"/{org.slug}/runs/{passed['id']}")
    assert "0.75" in detail and "chromium" in detail
    await page(client, f"/{org.slug}/runs/{theirs['id']}", 404)
    await page(client, f"/{org.slug}/runs?page=0", 422)


async def test_owners_manage_members_and_a_removed_member_loses_access(
    stack: Stack, identity: IdentityFactory, browser: Browser
):
    org = await identity.organization()
    owner = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    members = f"/{org.slug}/settings/members"
    email, password = await identity.account()
    added = await submit(owner, members, {"email": email.upper(), "role": "admin"})
    assert (added.status, added.headers["Location"]) == (303, members)
    admin = await signed_in(await browser(), email, password)
    invitation = re.search(r'action="/invitations/([0-9a-f-]{36})/accept"', await page(admin, "/orgs"))
    assert invitation is not None
    assert (await submit(admin, "/orgs", {}, action=f"/invitations/{invitation.group(1)}/accept")).status == 303
    again = await submit(owner, members, {"email": email, "role": "member"})
    assert again.status == 409
    async with cursor(identity.pool) as cur:
        user = await queries.find_user_for_sign_in(cur, email)
        assert await queries.find_membership_role(cur, user["id"], org.id) == "admin"

    admin_page = await page(admin, members)
    assert '<option value="owner"' not in admin_page  # an admin cannot give the owner role
    assert (await submit(admin, members, {"email": "new@example.com", "role": "owner"})).status == 422
    assert (await admin.get("/api/v1/agent-simulation/runs")).status == 200

    changed = await submit(owner, members, {"role": "viewer"}, action=f"{members}/{user['id']}/role")
    assert changed.status == 303
    assert "Create a key" not in await page(admin, f"/{org.slug}/settings/api-keys")  # now a viewer
    removed = await submit(owner, members, {}, action=f"{members}/{user['id']}/remove")
    assert removed.status == 303
    started = time.monotonic()
    while (await admin.get("/api/v1/agent-simulation/runs")).status != 401:
        assert time.monotonic() - started < 2.0, "the removed member's session still works"
    await page(admin, f"/{org.slug}", 404)

    async with cursor(identity.pool) as cur:
        me = (await queries.list_users(cur, org.id))[0]
    last_owner = await submit(owner, members, {"role": "admin"}, action=f"{members}/{me['id']}/role")
    assert last_owner.status == 409 and "at least one owner" in await last_owner.text()
    forged = await owner.post(f"{members}/{me['id']}/remove", data={"csrf_token": "x"}, allow_redirects=False)
    assert forged.status == 403


async def test_sessions_and_devices_are_listed_and_revoked(stack: Stack, identity: IdentityFactory, browser: Browser):
    org = await identity.organization()
    email, password = await identity.account((org, "member"))
    laptop = await signed_in(stack.gateway, email, password)
    phone = await signed_in(await browser(), email, password)
    await page(phone, f"/{org.slug}")  # a session is listed from its first page
    security = f"/{org.slug}/settings/security"
    listing = await page(laptop, security)
    rows = [row for row in listing.split("<tr>") if "/sessions/" in row]
    assert len(rows) == 2 and sum("this browser" in row for row in rows) == 1
    (phone_row,) = [row for row in rows if "this browser" not in row]
    target = re.search(r'action="([^"]+/revoke)"', phone_row)
    assert target is not None
    revoked = await submit(laptop, security, {}, action=target.group(1))
    assert (revoked.status, revoked.headers["Location"]) == (303, security)
    assert (await phone.get(f"/{org.slug}", allow_redirects=False)).status == 303  # to the sign-in page
    assert (await phone.get("/api/v1/agent-simulation/runs")).status == 401
    assert (await laptop.get(f"/{org.slug}", allow_redirects=False)).status == 200
    assert (await submit(laptop, security, {}, action=target.group(1))).status == 404  # ended already

    async with transaction(identity.pool) as cur:
        user = await queries.find_user_for_sign_in(cur, email)
        grant = await oauth_queries.insert_grant(
            cur, "aivis-cli", str(user["id"]), org.id, ["content:read"], datetime.now(UTC)
        )
    token = identity.signer.mint(str(user["id"]), org.id, frozenset({"content:read"}), grant_id=grant)
    bearer = {"Authorization": f"Bearer {token}"}
    assert (await laptop.get("/api/v1/apps", headers=bearer)).status == 200
    devices = await page(laptop, security)
    assert "aivis command line" in devices
    revoked = await submit(laptop, security, {}, action=f"{security}/devices/{grant}/revoke")
    assert revoked.status == 303
    started = time.monotonic()
    while (await laptop.get("/api/v1/apps", headers=bearer)).status != 401:
        assert time.monotonic() - started < 2.0, "the revoked device's token still works"
    assert "No devices." in await page(laptop, security)


async def test_reloading_the_new_key_page_creates_no_second_key(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    keys = f"/{org.slug}/settings/api-keys"
    response = await submit(client, keys, [("name", "ci"), ("scopes", "content:read")])
    secret = secret_in(await shown_once(client, response))
    again = await client.get(response.headers["Location"], allow_redirects=False)
    assert again.status == 303 and "/new" not in again.headers["Location"]
    assert secret not in await page(client, again.headers["Location"])
    async with cursor(identity.pool) as cur:
        assert len(await key_queries.list_api_keys(cur, org.id)) == 1
