"""An App's llms-full.txt, its pages' markdown and its sitemap.xml through the gateway, over real
apps and content services; the sitemap validated against the sitemaps.org schema (sitemap.xsd)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from lxml import etree

from tests.factories import ContentFactory, DomainFactory
from tests.integration.agent_site import new_site
from tests.integration.support import call

SITEMAP_SCHEMA = etree.XMLSchema(etree.parse(str(Path(__file__).with_name("sitemap.xsd"))))
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

GUIDE = """# Guide

Some text with a # that is no heading.

## Install

```sh
# a comment, no heading
```

Setup
-----
"""


async def test_llms_full_has_every_listed_document_once_with_its_headings_moved_down(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    guide = await content.document(org, product, "a", title="Guide", status="published", priority=80, content=GUIDE)
    faq = await content.document(org, product, "b", title="FAQ", status="published", priority=10, content="Ask away.")
    draft = await content.document(
        org, product, "c", title="Draft", status="published", no_index=True, content="# secret"
    )
    site = await new_site(gateway, headers, domains, product, description="All of it.")
    await site.route(guide=guide, docs__guide=guide, faq=faq, draft=draft)

    response = await site.get("/llms-full.txt")

    assert response.status == 200
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert response.headers["Transfer-Encoding"] == "chunked"  # streamed, never measured whole first
    base = f"https://{site.domain}"
    text = await response.text()
    assert text.startswith("# Acme Docs\n\n> All of it.\n\n")
    guide_part = (
        f"## [Guide]({base}/docs/guide)\n\n### Guide\n\nSome text with a # that is no heading.\n\n#### Install\n\n"
        "```sh\n# a comment, no heading\n```\n\n#### Setup\n\n"
    )
    assert text.endswith(guide_part + f"## [FAQ]({base}/faq)\n\nAsk away.\n\n")
    assert "secret" not in text and text.count("## [Guide]") == 1


async def test_llms_full_answers_304_to_its_etag_and_changes_with_a_documents_text(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    page = await content.document(org, product, "a", title="Page", status="published", content="Old text")
    site = await new_site(gateway, headers, domains, product)
    await site.route(page=page)
    etag = (await site.get("/llms-full.txt")).headers["ETag"]
    assert (await site.get("/llms-full.txt", {"If-None-Match": etag})).status == 304

    status, _ = await call(gateway, "PUT", f"/api/v1/content/{page['id']}", headers, json={"content": "New text"})
    assert status == 200
    changed = await site.get("/llms-full.txt", {"If-None-Match": etag})

    assert changed.status == 200 and "New text" in await changed.text()
    assert changed.headers["ETag"] != etag


async def test_a_routed_pages_markdown_links_to_the_llms_txt(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    page = await content.document(org, product, "a", title="Pricing", status="published", content="# Plans\n")
    site = await new_site(gateway, headers, domains, product)
    await site.route(pricing=page)

    response = await site.get("/pages/markdown", path="/pricing/")  # an equivalent spelling of the route

    assert response.status == 200, await response.text()
    assert response.headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert await response.text() == "# Plans\n"
    assert response.headers["Link"] == f'<https://{site.domain}/llms.txt>; rel="describedby"'
    unchanged = await site.get("/pages/markdown", {"If-None-Match": response.headers["ETag"]}, path="/pricing")
    assert unchanged.status == 304


async def test_a_page_not_routed_or_not_published_is_a_404(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    draft = await content.document(org, product, "a", title="Draft", status="draft", content="x")
    site = await new_site(gateway, headers, domains, product)
    await site.route(draft=draft)
    for path, message in (("/draft", "not published"), ("/nowhere", "no route")):
        status, body = await call(gateway, "GET", f"{site.base}/pages/markdown", headers, params={"path": path})
        assert (status, body["code"]) == (404, "NOT_FOUND")
        assert message in body["message"]
    status, body = await call(gateway, "GET", f"{site.base}/pages/markdown", headers, params={"path": "no slash?"})
    assert (status, body["code"]) == (422, "VALIDATION_FAILED")


async def test_the_sitemap_is_valid_and_lists_the_indexable_pages_with_their_last_change(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    first = await content.document(org, product, "a", title="A", status="published", priority=90)
    second = await content.document(org, product, "b", title="B & more", status="published", priority=5)
    hidden = await content.document(org, product, "c", title="C", status="published", no_index=True)
    site = await new_site(gateway, headers, domains, product)
    await site.route(first=first, docs__second=second, hidden=hidden)

    response = await site.get("/sitemap.xml")

    assert response.status == 200
    assert response.headers["Content-Type"] == "application/xml; charset=utf-8"
    document = etree.fromstring(await response.read())
    assert SITEMAP_SCHEMA.validate(document), SITEMAP_SCHEMA.error_log
    urls = [(url.findtext(f"{SITEMAP}loc"), url.findtext(f"{SITEMAP}lastmod")) for url in document]
    assert [loc for loc, _ in urls] == [f"https://{site.domain}/first", f"https://{site.domain}/docs/second"]
    assert [datetime.fromisoformat(lastmod) for _, lastmod in urls] == [first["updated_at"], second["updated_at"]]
    assert (await site.get("/sitemap.xml", {"If-None-Match": response.headers["ETag"]})).status == 304
