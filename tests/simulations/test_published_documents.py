"""What simulated agents read: the apps part's internal endpoint answers, path by path, what the App
publishes, for the calling organization only."""

from __future__ import annotations

import aiohttp

from libs.common.internal_token import HEADER, Organization, mint, service_caller
from libs.contract import internal
from tests.conftest import Stack
from tests.factories import ContentFactory, DomainFactory, Org
from tests.simulations import site as s


async def published(stack: Stack, org: Org, app_id: str, path: str) -> tuple[int, str, str]:
    caller = service_caller("simulations", Organization(org.id, org.slug, org.name))
    url = internal.APP_PUBLISHED.url(
        str(stack.servers["apps"].make_url("")).rstrip("/"), [("path", path)], appId=app_id
    )
    headers = {HEADER: mint(stack.environ["INTERNAL_TOKEN_SECRET"], caller)}
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as response:
        return response.status, response.headers.get("Content-Type", ""), await response.text()


async def test_each_path_of_the_site_answers_as_the_public_routes_do(
    stack, gateway, tenant, content: ContentFactory, domains: DomainFactory, identity
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    app_id = app.app["id"]

    status, kind, text = await published(stack, org, app_id, "/llms.txt")
    public = await app.get("/llms.txt")
    assert (status, kind) == (200, "text/plain; charset=utf-8") and text == await public.text()
    status, kind, text = await published(stack, org, app_id, "/sitemap.xml")
    assert (status, kind) == (200, "application/xml; charset=utf-8") and "<loc>" in text
    for path in ("/pricing", "/pricing.md"):
        status, kind, text = await published(stack, org, app_id, path)
        assert (status, kind, text) == (200, "text/markdown; charset=utf-8", s.PRICING)
    status, _, text = await published(stack, org, app_id, "/robots.txt")
    assert status == 404 and "no route" in text

    other = await identity.organization()
    status, _, text = await published(stack, other, app_id, "/llms.txt")
    assert status == 404 and "app not found" in text
