"""What an App's domain answers at its root, which hostnames the edge serves at all, redirect
domains, and how soon a change reaches the answers."""

from __future__ import annotations

from lxml import etree

from tests.edge.conftest import Apps, Edge
from tests.factories import eventually
from tests.integration.support import call

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# Within what the issue allows (2 s) on a machine shared with other work.
FRESH_SECONDS = 2.0


async def test_llms_txt_llms_full_and_sitemap_are_public_at_the_root(edge: Edge, apps: Apps):
    app = await apps.new(description="Everything about widgets.")
    await app.page("/guide", title="Guide", content="# Guide\n\nRead me.\n", priority=80)
    await app.page("/hidden", title="Hidden", content="no", no_index=True)
    base = f"https://{app.hostname}"

    llms = await edge.get(app.hostname, "/llms.txt")
    full = await edge.get(app.hostname, "/llms-full.txt")
    sitemap = await edge.get(app.hostname, "/sitemap.xml")

    assert llms.status == 200 and llms.headers["Content-Type"] == "text/plain; charset=utf-8"
    text = await llms.text()
    assert text.startswith("# Acme Docs\n\n> Everything about widgets.\n")
    assert f"- [Guide]({base}/guide)" in text and "Hidden" not in text
    assert full.status == 200 and "Read me." in await full.text()
    assert sitemap.status == 200 and sitemap.headers["Content-Type"] == "application/xml; charset=utf-8"
    locations = [url.findtext(f"{SITEMAP}loc") for url in etree.fromstring(await sitemap.read())]
    assert locations == [f"{base}/guide"]
    for response, path in ((llms, "/llms.txt"), (full, "/llms-full.txt"), (sitemap, "/sitemap.xml")):
        assert response.headers["Cache-Control"].startswith("public, max-age=")
        again = await edge.get(app.hostname, path, {"If-None-Match": response.headers["ETag"]})
        assert again.status == 304, path


async def test_robots_txt_follows_the_apps_config(edge: Edge, apps: Apps):
    app = await apps.new()
    default = await edge.get(app.hostname, "/robots.txt")
    assert default.status == 200 and default.headers["Content-Type"] == "text/plain; charset=utf-8"
    sitemap_line = f"Sitemap: https://{app.hostname}/sitemap.xml\n"
    assert await default.text() == "User-agent: *\nAllow: /\n\n" + sitemap_line

    await app.configure(
        {
            "robots": [
                {"userAgent": ["GPTBot", "CCBot"], "disallow": ["/"]},
                {"userAgent": "OAI-SearchBot", "allow": ["/"], "disallow": ["/private\nInjected: yes"]},
                "not a rule",
            ]
        }
    )

    async def changed() -> bool:
        return "GPTBot" in await (await edge.get(app.hostname, "/robots.txt")).text()

    assert await eventually(changed, within=FRESH_SECONDS) < FRESH_SECONDS
    text = await (await edge.get(app.hostname, "/robots.txt")).text()
    assert text == (
        "User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\n"
        "User-agent: OAI-SearchBot\nAllow: /\nDisallow: /private Injected: yes\n\n" + sitemap_line
    )


async def test_unknown_unverified_and_deleted_hostnames_are_a_plain_404(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.page("/pricing", title="Pricing", content="secret pricing")
    status, body = await call(
        app.gateway, "POST", f"{app.base}/domains", app.headers, json={"domain": "claim-" + app.hostname, "type": "web"}
    )
    assert status == 201 and body["data"]["verified"] is False
    unverified = body["data"]["domain"]
    deleted = await app.domain()
    assert (await edge.get(deleted, "/pricing")).status == 200
    status, domains = await call(app.gateway, "GET", f"{app.base}/domains", app.headers)
    deleted_id = next(d["id"] for d in domains["data"] if d["domain"] == deleted)
    assert (await app.gateway.delete(f"{app.base}/domains/{deleted_id}", headers=app.headers)).status == 200

    async def gone() -> bool:
        return (await edge.get(deleted, "/pricing")).status == 404

    assert await eventually(gone, within=FRESH_SECONDS) < FRESH_SECONDS
    for host in (unverified, deleted, "nobody-" + app.hostname):
        response = await edge.get(host, "/pricing")
        assert response.status == 404, host
        assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert "secret" not in await response.text()


async def test_caddys_ask_is_yes_for_a_verified_domain_only(edge: Edge, apps: Apps):
    app = await apps.new()
    status, body = await call(
        app.gateway, "POST", f"{app.base}/domains", app.headers, json={"domain": "claim-" + app.hostname, "type": "web"}
    )
    assert status == 201

    yes = await edge.get(None, f"/tls/ask?domain={app.hostname.upper()}")
    no = await edge.get(None, f"/tls/ask?domain={body['data']['domain']}")
    unknown = await edge.get(None, "/tls/ask?domain=..")

    assert (yes.status, no.status, unknown.status) == (200, 404, 404)


async def test_a_redirect_domain_answers_308_to_its_origin_with_path_and_query(edge: Edge, apps: Apps):
    app = await apps.new()
    old = await app.domain(type="redirect", origin="https://www.acme.example")

    response = await edge.get(old, "/a/b%20c?x=1&y=%2F")

    assert response.status == 308
    assert response.headers["Location"] == "https://www.acme.example/a/b%20c?x=1&y=%2F"


async def test_a_change_to_a_document_or_a_route_reaches_the_edge_within_two_seconds(edge: Edge, apps: Apps):
    app = await apps.new()
    page = await app.page("/news", title="News", content="old news")
    assert await (await edge.get(app.hostname, "/news.md")).text() == "old news"
    assert (await edge.get(app.hostname, "/later.md")).status == 404

    status, body = await call(
        app.gateway, "PUT", f"/api/v1/content/{page['id']}", app.headers, json={"content": "fresh news"}
    )
    assert status == 200, body

    async def document_changed() -> bool:
        return await (await edge.get(app.hostname, "/news.md")).text() == "fresh news"

    assert await eventually(document_changed, within=FRESH_SECONDS) < FRESH_SECONDS
    await app.page("/later", title="Later", content="routed later")

    async def route_added() -> bool:
        return (await edge.get(app.hostname, "/later.md")).status == 200

    assert await eventually(route_added, within=FRESH_SECONDS) < FRESH_SECONDS
    llms = await (await edge.get(app.hostname, "/llms.txt")).text()
    assert f"https://{app.hostname}/later" in llms
