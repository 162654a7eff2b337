"""The audit trail and webhooks settings pages over HTTP: every role reads them, filters and the
cursor reach the API, a refused filter is said on the page, another organization is a 404."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import Client, Stack
from tests.factories import IdentityFactory, Org, eventually
from tests.gateway.dashboard_client import api, page, signed_in

ROWS = re.compile(r"<tbody>(.*?)</tbody>", re.S)


async def _endpoints(client: Client, key: str, count: int) -> list[dict[str, Any]]:
    created = []
    for index in range(count):
        body = {"url": f"https://example.com/hook-{index}", "events": ["*"], "description": f"hook {index}"}
        headers = {"x-api-key": key, "X-Request-Id": f"audit-page-{index}"}
        async with client.post("/api/v1/webhook-endpoints", json=body, headers=headers) as response:
            answer = await response.json()
            assert response.status == 201, answer
        created.append(answer["data"])
    return created


async def _audited(client: Client, key: str, count: int) -> None:
    async def enough() -> bool:
        found = await api(client, key, "GET", "/api/v1/audit-events?action=webhook_endpoint.created&limit=100")
        return len(found["events"]) >= count

    await eventually(enough, within=20.0)


Created = list[dict[str, Any]]


async def _org_with_events(stack: Stack, identity: IdentityFactory, count: int) -> tuple[Org, str, Created]:
    org = await identity.organization()
    key = await identity.api_key(org)
    created = await _endpoints(stack.gateway, key, count)
    await _audited(stack.gateway, key, count)
    return org, key, created


async def test_every_role_reads_the_trail_newest_first_with_who_what_and_where(stack: Stack, identity: IdentityFactory):
    org, key, created = await _org_with_events(stack, identity, 2)
    for role in ("owner", "admin", "member", "viewer"):
        client = await signed_in(stack.gateway, *await identity.account((org, role)))
        assert f'href="/{org.slug}/settings/audit"' in await page(client, f"/{org.slug}/settings/security")
        html = await page(client, f"/{org.slug}/settings/audit")
        rows = ROWS.search(html)
        assert rows is not None, html
        # Newest first: the second endpoint's creation comes before the first's.
        assert rows.group(1).index(created[1]["id"]) < rows.group(1).index(created[0]["id"])
        for text in (
            "webhook_endpoint.created",
            "webhook_endpoint",
            key[:12],
            "127.0.0.1",
            "audit-page-1",
            "success",
            'aria-current="page">Audit trail',
        ):
            assert text in html, text


async def test_filters_and_older_pages_by_cursor(stack: Stack, identity: IdentityFactory):
    org, key, created = await _org_with_events(stack, identity, 27)
    await api(stack.gateway, key, "DELETE", f"/api/v1/webhook-endpoints/{created[0]['id']}")
    client = await signed_in(stack.gateway, *await identity.account((org, "viewer")))
    path = f"/{org.slug}/settings/audit"

    async def deleted_listed() -> bool:
        return "webhook_endpoint.deleted" in await page(client, path + "?action=webhook_endpoint.deleted")

    await eventually(deleted_listed, within=20.0)
    only_deletes = ROWS.search(await page(client, path + "?action=webhook_endpoint.deleted"))
    assert only_deletes is not None and only_deletes.group(1).count("<tr>") == 1
    assert "webhook_endpoint.created" not in only_deletes.group(1)
    # By actor and resource type; an actor who did nothing shows none.
    assert "No audit events match these filters" in await page(client, path + "?actor=operator")
    assert created[3]["id"] in await page(client, path + f"?actor={key[:12]}&resourceType=webhook_endpoint")
    # A time range from the form's fields (read as UTC): everything is before 2100, nothing after.
    assert "No audit events match" in await page(client, path + "?since=2100-01-01T00:00")
    assert created[26]["id"] in await page(client, path + "?until=2100-01-01T00:00&action=webhook_endpoint.created")
    # Twenty-five a page, newest first; "Older" carries the cursor and keeps the filters.
    first = await page(client, path + "?action=webhook_endpoint.created")
    older = re.search(r'href="([^"]*cursor=[^"]+)" rel="next"', first)
    assert older is not None and "action=webhook_endpoint.created" in older.group(1)
    assert created[26]["id"] in first and created[0]["id"] not in first
    second = await page(client, older.group(1).replace("&amp;", "&"))
    assert created[0]["id"] in second and created[1]["id"] in second and created[26]["id"] not in second
    assert 'rel="next" aria-disabled="true"' in second and ">Newest</a>" in second


async def test_a_refused_filter_is_said_on_the_page(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    path = f"/{org.slug}/settings/audit"
    assert "From must be a date and time" in await page(client, path + "?since=yesterday", 422)
    assert 'role="alert"' in await page(client, path + "?cursor=not-a-cursor", 422)


async def test_another_organizations_trail_and_webhooks_are_404(stack: Stack, identity: IdentityFactory):
    theirs, _, [theirs_endpoint] = await _org_with_events(stack, identity, 1)
    mine = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((mine, "owner")))
    for path in ("/settings/audit", "/settings/webhooks"):
        assert "Page not found" in await page(client, f"/{theirs.slug}{path}", 404)
    # My own trail does not show their events (my sign-in, maybe; never their endpoint).
    mine_html = await page(client, f"/{mine.slug}/settings/audit")
    assert theirs_endpoint["id"] not in mine_html and "webhook_endpoint.created" not in mine_html


async def test_webhooks_page_lists_endpoints_with_their_recent_deliveries(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    [endpoint] = await _endpoints(stack.gateway, key, 1)
    await api(stack.gateway, key, "POST", f"/api/v1/webhook-endpoints/{endpoint['id']}/test")
    client = await signed_in(stack.gateway, *await identity.account((org, "viewer")))
    html = await page(client, f"/{org.slug}/settings/webhooks")
    for text in ("https://example.com/hook-0", "hook 0", "ping", 'aria-current="page">Webhooks'):
        assert text in html, text
    # example.com does not answer the ping: once it has been tried, the endpoint shows as failing, in red.
    assert ">enabled</span>" in html or ('class="card card-flush card-failing"' in html and ">failing</span>" in html)
    assert "csrf_token" not in html.split('aria-label="Settings"')[1]  # read-only: no forms
    empty = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((empty, "owner")))
    assert "No webhook endpoints" in await page(client, f"/{empty.slug}/settings/webhooks")
