"""A product's prompts, competitors and AI answers in the dashboard, over HTTP: what each role
sees, the forms that track a prompt and add a competitor, the answer with its mentions highlighted,
and nothing of another organization."""

from __future__ import annotations

from tests.analytics.conftest import Collector, branded
from tests.conftest import Stack
from tests.factories import IdentityFactory
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
        "Best BI tool?", "weekly", ["perplexity-sonar"], ["bi", "pricing"],
    )  # fmt: skip
    html = await page(client, base + "/prompts")
    assert "Best BI tool?" in html and "Prompt tracked." in html
    # No engine holds a key in this stack: the run button says so and is disabled.
    assert 'disabled title="No engine is configured in this deployment"' in html
    refused = await submit(client, base + "/prompts", {"text": "best bi tool?", "cadence": "daily"})
    assert refused.status == 409 and "already tracks a prompt with this text" in await refused.text()

    response = await submit(client, base + "/competitors", {"name": "Initech", "aliases": "Initech Corp",
                                                           "domains": "initech.com"})  # fmt: skip
    assert response.status == 303
    html = await page(client, base + "/competitors")
    for text in ("Initech Corp", "initech.com", "Globex", "set version 3", "acme.com"):
        assert text in html, text

    html = await page(client, base + "/answers")
    assert f"{base}/answers/{answer['id']}" in html and "#2" in html
    html = await page(client, base + f"/answers/{answer['id']}")
    assert '<mark class="mention mention-brand" title="Acme (your brand), position 2">Acme Cloud</mark>' in html
    assert '<mark class="mention mention-competitor" title="Globex, position 1">Globex</mark>' in html
    assert "https://acme.com/pricing" in html and ">owned<" in html


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
