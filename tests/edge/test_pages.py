"""An App's routed pages on its own domain, through the stack's edge: HTML for people, markdown for
agents, redirects, validators and what is never served."""

from __future__ import annotations

from lxml import html as lxml_html

from tests.edge.conftest import Apps, Edge

DOC = """# Plans

Pay **monthly**. <script>alert(1)</script>

[bad](javascript:alert(1)) and [good](https://example.org/)
"""


async def test_a_routed_page_is_html_for_people_with_its_metadata(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.page(
        "/pricing",
        title="Pricing",
        content=DOC,
        meta_title="Pricing | Acme",
        meta_description="What it costs",
        canonical_url="https://acme.example/pricing",
        og_title="OG pricing",
        og_image="https://cdn.example/p.png",
        twitter_title="Tw pricing",
    )

    response = await edge.get(app.hostname, "/pricing", {"Accept": "text/html"})

    assert response.status == 200, await response.text()
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Link"] == '</llms.txt>; rel="describedby"'
    assert response.headers["Vary"] == "Accept"
    assert response.headers["Cache-Control"].startswith("public, max-age=")
    assert "stale-while-revalidate=" in response.headers["Cache-Control"]
    assert "X-Robots-Tag" not in response.headers
    page = lxml_html.fromstring(await response.text())
    assert page.findtext(".//title") == "Pricing | Acme"
    meta = {m.get("name") or m.get("property"): m.get("content") for m in page.iter("meta") if m.get("content")}
    assert meta["description"] == "What it costs"
    assert meta["og:title"] == "OG pricing" and meta["og:image"] == "https://cdn.example/p.png"
    assert meta["twitter:title"] == "Tw pricing" and meta["twitter:card"] == "summary_large_image"
    assert "robots" not in meta
    assert page.find(".//link[@rel='canonical']").get("href") == "https://acme.example/pricing"
    assert page.findtext(".//h1") == "Plans"
    assert page.find(".//strong").text == "monthly"
    assert page.findall(".//script") == []  # raw HTML is shown as text, never run
    assert "<script>alert(1)</script>" in page.text_content()
    hrefs = [a.get("href") for a in page.iter("a")]
    assert hrefs == ["https://example.org/"]  # an unsafe scheme is not made a link


async def test_markdown_for_agents_by_accept_or_by_md_path(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.page("/docs/start", title="Start", content="# Start\n\nHello.\n")

    by_accept = await edge.get(app.hostname, "/docs/start", {"Accept": "text/markdown, text/html;q=0.5"})
    by_path = await edge.get(app.hostname, "/docs/start.md")

    for response in (by_accept, by_path):
        assert response.status == 200
        assert response.headers["Content-Type"] == "text/markdown; charset=utf-8"
        assert response.headers["Link"] == '</llms.txt>; rel="describedby"'
        assert await response.text() == "# Start\n\nHello.\n"
    browser = await edge.get(app.hostname, "/docs/start", {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert browser.headers["Content-Type"] == "text/html; charset=utf-8"


async def test_no_index_is_said_in_the_page_and_the_header(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.page("/hidden", title="Hidden", content="x", no_index=True)

    response = await edge.get(app.hostname, "/hidden")
    markdown = await edge.get(app.hostname, "/hidden.md")

    assert response.status == 200
    assert response.headers["X-Robots-Tag"] == "noindex"
    assert markdown.headers["X-Robots-Tag"] == "noindex"
    assert '<meta name="robots" content="noindex">' in await response.text()


async def test_a_strong_etag_answers_304_and_a_change_a_new_one(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.page("/faq", title="FAQ", content="Ask.")
    first = await edge.get(app.hostname, "/faq")
    etag = first.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")

    again = await edge.get(app.hostname, "/faq", {"If-None-Match": etag})

    assert again.status == 304
    assert again.headers["ETag"] == etag and await again.read() == b""
    markdown = await edge.get(app.hostname, "/faq.md")
    assert markdown.headers["ETag"] != etag  # another representation, another tag


async def test_redirect_to_url_is_a_308(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.page("/old", title="Old", content="gone", redirect_to_url="https://acme.example/new")

    response = await edge.get(app.hostname, "/old")

    assert response.status == 308
    assert response.headers["Location"] == "https://acme.example/new"


async def test_drafts_deleted_documents_and_deleted_routes_are_never_served(edge: Edge, apps: Apps):
    app = await apps.new()
    draft = await app.document(title="Draft", content="secret draft", status="draft")
    await app.route("/draft", draft)
    deleted = await app.page("/deleted", title="Deleted", content="secret deleted")
    await app.content.delete(app.org, app.product, deleted["id"])
    gone = await app.document(title="Gone", content="secret gone")
    route = await app.route("/gone", gone)
    response = await app.gateway.delete(f"{app.base}/routes/{route['id']}", headers=app.headers)
    assert response.status == 200

    for path in ("/draft", "/draft.md", "/deleted", "/gone", "/gone.md"):
        answer = await edge.get(app.hostname, path, {"Accept": "text/markdown"})
        assert answer.status == 404, path
        assert "secret" not in await answer.text()


async def test_an_equivalent_spelling_of_a_routed_path_is_the_page(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.page("/caf\u00e9/menu", title="Menu", content="Coffee.")

    for path in ("/caf%C3%A9/menu", "/caf%c3%a9//menu/", "/x/../caf%C3%A9/menu", "/caf%C3%A9/./menu"):
        response = await edge.get(app.hostname, path, {"Accept": "text/markdown"})
        assert (response.status, await response.text()) == (200, "Coffee."), path
