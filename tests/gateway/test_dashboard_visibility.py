"""A product's prompts, competitors and AI answers in the dashboard, over HTTP: what each role
sees, the forms that track a prompt and add a competitor, the answer with its mentions and cited
pages highlighted, and nothing of another organization."""

from __future__ import annotations

from gateway.dashboard.visibility import Piece, highlighted
from tests.analytics.conftest import Collector, branded
from tests.analytics.test_citation_routes import app_site
from tests.conftest import Stack
from tests.factories import AppsProducts, ContentFactory, DomainFactory, IdentityFactory
from tests.gateway.dashboard_client import page, signed_in, submit

TEXT = "1. Globex is the incumbent.\n2. Acme Cloud is excellent. See https://acme.com/pricing"


async def test_prompts_competitors_and_an_answer_highlighted(stack: Stack, identity: IdentityFactory):
    tenant = await branded(stack.gateway, identity)
    answer = await Collector(tenant).send(TEXT)
    await Collector(tenant).analysed(answer["id"])
    client = await signed_in(stack.gateway, *await identity.account((tenant.org, "member")))
    base = f"/{tenant.org.slug}/products/{tenant.product['slug']}"

    form = {"text": "Best BI tool?", "cadence": "weekly", "engines": "perplexity-sonar", "tags": "bi, pricing"}
    response = await submit(client, base + "/prompts", form)
    assert (response.status, response.headers["Location"]) == (303, base + "/prompts")
    _, listing = await tenant.call("GET", f"/api/v1/products/{tenant.product['id']}/prompts")
    stored = listing["data"]["items"][0]
    assert (stored["text"], stored["cadence"], stored["engines"], stored["tags"]) == (
        "Best BI tool?",
        "weekly",
        ["perplexity-sonar"],
        ["bi", "pricing"],
    )
    html = await page(client, base + "/prompts")
    assert "Best BI tool?" in html and "Prompt tracked." in html
    # No engine holds a key in this stack: the run button says so and is disabled.
    assert 'disabled title="No engine is configured in this deployment"' in html
    refused = await submit(client, base + "/prompts", {"text": "best bi tool?", "cadence": "daily"})
    assert refused.status == 409 and "already tracks a prompt with this text" in await refused.text()

    response = await submit(
        client, base + "/competitors", {"name": "Initech", "aliases": "Initech Corp", "domains": "initech.com"}
    )
    assert response.status == 303
    html = await page(client, base + "/competitors")
    for text in ("Initech Corp", "initech.com", "Globex", "set version 3", "acme.com"):
        assert text in html, text

    html = await page(client, base + "/answers")
    assert f"{base}/answers/{answer['id']}" in html and "#2" in html
    html = await page(client, base + f"/answers/{answer['id']}")
    assert '<mark class="mention mention-brand" title="Acme (your brand), position 2">Acme Cloud</mark>' in html
    assert '<mark class="mention mention-competitor" title="Globex, position 1">Globex</mark>' in html
    assert (
        '<a class="cited cited-owned" href="https://acme.com/pricing" rel="noopener noreferrer nofollow"'
        ' title="Your page">https://acme.com/pricing</a>'
    ) in html and ">owned<" in html


async def test_a_page_an_app_route_serves_links_to_the_routes_page_for_those_who_may_edit_routes(
    stack: Stack,
    identity: IdentityFactory,
    apps_products: AppsProducts,
    content: ContentFactory,
    domains: DomainFactory,
):
    tenant = await branded(stack.gateway, identity)
    app, host, (pricing,) = await app_site(tenant, apps_products, content, domains, "/pricing")
    answer = await Collector(tenant).send(f"Acme's prices: https://{host}/pricing")
    await Collector(tenant).analysed(answer["id"])
    path = f"/{tenant.org.slug}/products/{tenant.product['slug']}/answers/{answer['id']}"
    route_page = f"/{tenant.org.slug}/apps/{app['id']}/routes/{pricing['id']}/edit"

    member = await signed_in(stack.gateway, *await identity.account((tenant.org, "member")))
    html = await page(member, path)
    assert f'<small class="block">App route <a href="{route_page}">/pricing</a></small>' in html
    assert f'class="cited cited-third_party" href="https://{host}/pricing"' in html
    viewer = await signed_in(stack.gateway, *await identity.account((tenant.org, "viewer")))
    html = await page(viewer, path)
    assert '<small class="block">App route /pricing</small>' in html and route_page not in html
    await page(viewer, route_page, status=403)


def test_the_text_is_cut_at_mentions_and_cited_urls_the_first_of_two_overlapping_winning():
    text = "Acme Cloud: https://acme.com/x and https://acme.com/x, Globex."
    acme = {"spans": [{"start": 0, "end": 10}, {"start": 0, "end": 4}]}
    globex = {"spans": [{"start": 55, "end": 61}, {"start": 28, "end": 40}]}  # the second inside a URL
    page = {"spans": [{"start": 12, "end": 30}, {"start": 35, "end": 53}, {"start": 5, "end": 15}]}
    assert highlighted(text, [acme, globex], [page]) == [
        Piece("Acme Cloud", brand=acme),
        Piece(": "),
        Piece("https://acme.com/x", citation=page),
        Piece(" and "),
        Piece("https://acme.com/x", citation=page),
        Piece(", "),
        Piece("Globex", brand=globex),
        Piece("."),
    ]


async def test_a_viewer_reads_without_forms_and_a_stranger_reads_nothing(stack: Stack, identity: IdentityFactory):
    tenant = await branded(stack.gateway, identity)
    base = f"/{tenant.org.slug}/products/{tenant.product['slug']}"
    viewer = await signed_in(stack.gateway, *await identity.account((tenant.org, "viewer")))
    html = await page(viewer, base + "/prompts")
    assert "Track a prompt" not in html and "No prompts yet" in html
    assert "Add a competitor" not in await page(viewer, base + "/competitors")
    stranger = await branded(stack.gateway, identity)
    outsider = await signed_in(stack.gateway, *await identity.account((stranger.org, "owner")))
    for path in ("/prompts", "/competitors", "/answers"):
        await page(outsider, base + path, status=404)
