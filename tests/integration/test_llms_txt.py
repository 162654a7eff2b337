"""An App's llms.txt through the gateway, over real apps and content services, read back with the
`llms-txt` package's parser (llmstxt.org's own, not ours)."""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from llms_txt import parse_llms_file

from libs.common.db import cursor
from tests.factories import ContentFactory, DomainFactory, IdentityFactory
from tests.integration.agent_site import Site, new_site
from tests.integration.support import call


def links(parsed: dict, section: str) -> list[tuple[str, str, str | None]]:
    return [(link["title"], link["url"], link["desc"]) for link in parsed["sections"][section]]


async def test_llms_txt_lists_the_published_indexable_routes_by_priority_in_sections(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    intro = await content.document(
        org,
        product,
        "a",
        title="Intro",
        status="published",
        priority=90,
        description="For people",
        description_for_agent="Start here",
    )
    setup = await content.document(
        org, product, "b", title="Setup [beta]", status="published", priority=60, description="Install\nit"
    )
    pricing = await content.document(org, product, "c", title="Pricing", status="published", priority=70)
    legal = await content.document(org, product, "d", title="Legal", status="published", priority=5)
    draft = await content.document(org, product, "e", title="Draft", status="draft", priority=99)
    hidden = await content.document(org, product, "f", title="Hidden", status="published", no_index=True)
    gone = await content.document(org, product, "g", title="Gone", status="published", priority=99)
    site = await new_site(gateway, headers, domains, product, description="Docs for agents.")
    await site.route(
        docs__intro=intro,
        docs__setup=setup,
        pricing=pricing,
        legal=legal,
        docs__draft=draft,
        docs__hidden=hidden,
        docs__gone=gone,
    )
    await content.delete(org, product, gone["id"])

    response = await site.get("/llms.txt")

    assert response.status == 200, await response.text()
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    parsed = parse_llms_file(await response.text())
    assert (parsed["title"], parsed["summary"]) == ("Acme Docs", "Docs for agents.")
    assert list(parsed["sections"]) == ["Docs", "Pages", "Optional"]
    base = f"https://{site.domain}"
    assert links(parsed, "Docs") == [
        ("Intro", f"{base}/docs/intro", "Start here"),
        ("Setup (beta)", f"{base}/docs/setup", "Install it"),
    ]
    assert links(parsed, "Pages") == [("Pricing", f"{base}/pricing", None)]
    assert links(parsed, "Optional") == [("Legal", f"{base}/legal", None)]
    etag = response.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    assert parsedate_to_datetime(response.headers["Last-Modified"]).tzinfo is not None


async def test_an_app_of_several_products_has_a_section_per_product(
    gateway, tenant, identity: IdentityFactory, apps_products, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    second = await identity.product(org, "Gadget")
    await apps_products.until_known(second)
    widget_page = await content.document(org, product, "w", title="Widget guide", status="published", priority=40)
    gadget_page = await content.document(org, second, "g", title="Gadget guide", status="published", priority=80)
    site = await new_site(gateway, headers, domains, product, second)
    await site.route(widget=widget_page, gadget=gadget_page)

    parsed = parse_llms_file(await (await site.get("/llms.txt")).text())

    assert parsed["summary"] is None
    base = f"https://{site.domain}"
    assert parsed["sections"] == {
        "Gadget": [{"title": "Gadget guide", "url": f"{base}/gadget", "desc": None}],
        "Widget": [{"title": "Widget guide", "url": f"{base}/widget", "desc": None}],
    }
    assert list(parsed["sections"]) == ["Gadget", "Widget"]


async def test_an_app_without_a_web_domain_is_a_409_saying_so(gateway, tenant):
    _, _, headers = tenant
    status, body = await call(gateway, "POST", "/api/v1/apps", headers, json={"name": "Bare"})
    for tail in ("llms.txt", "llms-full.txt", "sitemap.xml", "pages/markdown?path=/a"):
        status, answer = await call(gateway, "GET", f"/api/v1/apps/{body['data']['id']}/{tail}", headers)
        assert status == 409, (tail, answer)
        assert answer["code"] == "CONFLICT" and "no web domain" in answer["message"]


async def test_the_primary_domain_is_the_first_web_domain_unless_the_config_names_another(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    page = await content.document(org, product, "p", title="Page", status="published")
    site = await new_site(gateway, headers, domains, product)
    second = await site.add_domain()
    await site.route(page=page)
    first = parse_llms_file(await (await site.get("/llms.txt")).text())
    assert first["sections"]["Pages"][0]["url"] == f"https://{site.domain}/page"

    status, _ = await call(
        gateway, "PATCH", f"{site.base}/app-config", headers, json={"config": {"primaryDomain": second}}
    )
    assert status == 200
    named = parse_llms_file(await (await site.get("/llms.txt")).text())
    assert named["sections"]["Pages"][0]["url"] == f"https://{second}/page"


async def test_an_unverified_claim_is_never_an_apps_address(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    page = await content.document(org, product, "p", title="Page", status="published")
    site = await new_site(gateway, headers, domains, product)
    await site.route(page=page)
    claimed = await site.add_domain(verified=False)
    status, _ = await call(
        gateway, "PATCH", f"{site.base}/app-config", headers, json={"config": {"primaryDomain": claimed}}
    )
    assert status == 200

    llms, sitemap = await site.get("/llms.txt"), await site.get("/sitemap.xml")

    for answer in (llms, sitemap):
        assert answer.status == 200
        text = await answer.text()
        assert f"https://{site.domain}/page" in text and claimed not in text
    # An App whose only web domain is a claim has no address at all.
    status, body = await call(gateway, "POST", "/api/v1/apps", headers, json={"name": "Claimed only"})
    bare = Site(gateway, headers, body["data"], "", domains)
    await bare.add_domain(verified=False)
    for tail in ("/llms.txt", "/sitemap.xml"):
        answer = await bare.get(tail)
        assert answer.status == 409 and "no web domain that is verified" in await answer.text()


async def test_a_current_etag_is_a_304_and_every_change_is_seen_on_the_next_read(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    """Computed on read: a route, document or domain change shows in the very next answer (well
    within the 2 s the issue allows), with a new ETag."""
    org, product, headers = tenant
    page = await content.document(org, product, "p", title="Before", status="published")
    site = await new_site(gateway, headers, domains, product)
    [route] = await site.route(page=page)
    first = await site.get("/llms.txt")
    etag = first.headers["ETag"]

    unchanged = await site.get("/llms.txt", {"If-None-Match": etag})
    assert unchanged.status == 304
    assert unchanged.headers["ETag"] == etag and await unchanged.read() == b""
    assert (await site.get("/llms.txt", {"If-None-Match": '"another"'})).status == 200

    seen = [etag]
    status, _ = await call(gateway, "PUT", f"/api/v1/content/{page['id']}", headers, json={"title": "After"})
    assert status == 200
    after_document = await site.get("/llms.txt", {"If-None-Match": etag})
    assert after_document.status == 200 and "[After]" in await after_document.text()
    seen.append(after_document.headers["ETag"])

    status, _ = await call(gateway, "PATCH", f"{site.base}/routes/{route['id']}", headers, json={"path": "/moved"})
    assert status == 200
    after_route = await site.get("/llms.txt")
    assert f"https://{site.domain}/moved" in await after_route.text()
    seen.append(after_route.headers["ETag"])

    second = await site.add_domain()
    status, _ = await call(
        gateway, "PATCH", f"{site.base}/app-config", headers, json={"config": {"primaryDomain": second}}
    )
    after_domain = await site.get("/llms.txt")
    assert f"https://{second}/moved" in await after_domain.text()
    seen.append(after_domain.headers["ETag"])
    assert len(set(seen)) == 4


async def test_a_released_domain_is_never_a_pages_address(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    page = await content.document(org, product, "p", title="Page", status="published")
    site = await new_site(gateway, headers, domains, product)
    second = await site.add_domain()
    await site.route(page=page)
    async with cursor(domains.pool) as cur:  # as a release will: the domain stays, no longer live
        await cur.execute("UPDATE domains SET deleted_at = clock_timestamp() WHERE domain = %s", (site.domain,))

    parsed = parse_llms_file(await (await site.get("/llms.txt")).text())

    assert parsed["sections"]["Pages"][0]["url"] == f"https://{second}/page"


async def test_the_llms_txt_needs_content_read_and_the_callers_own_app(
    gateway, tenant, identity: IdentityFactory, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    site = await new_site(gateway, headers, domains, product)
    writer = {"x-api-key": await identity.api_key(org, frozenset({"content:write"}))}
    status, body = await call(gateway, "GET", f"{site.base}/llms.txt", writer)
    assert (status, body["code"]) == (403, "FORBIDDEN")
    other = await identity.organization()
    stranger = {"x-api-key": await identity.api_key(other)}
    status, body = await call(gateway, "GET", f"{site.base}/llms.txt", stranger)
    assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_a_document_made_no_index_or_deleted_leaves_the_next_answer(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    kept = await content.document(org, product, "k", title="Kept", status="published", priority=80)
    hidden = await content.document(org, product, "h", title="Soon hidden", status="published", priority=60)
    gone = await content.document(org, product, "g", title="Soon gone", status="published", priority=40)
    site = await new_site(gateway, headers, domains, product)
    await site.route(kept=kept, hidden=hidden, gone=gone)
    before = parse_llms_file(await (await site.get("/llms.txt")).text())
    assert [link["title"] for link in before["sections"]["Pages"]] == ["Kept", "Soon hidden", "Soon gone"]

    status, _ = await call(gateway, "PUT", f"/api/v1/content/{hidden['id']}", headers, json={"noIndex": True})
    assert status == 200
    await content.delete(org, product, gone["id"])
    after = parse_llms_file(await (await site.get("/llms.txt")).text())

    assert [link["title"] for link in after["sections"]["Pages"]] == ["Kept"]
