"""Domains the apps service released (a lapsed claim, a hostname another organization proved) leave documents."""

from __future__ import annotations

from typing import Any

from libs.common.db import create_pool, cursor
from libs.contract.parts import APPS
from tests.conftest import Stack, build_app
from tests.content.api import Tenant
from tests.content.conftest import ServiceClient
from tests.content.test_document_domains import entry, patch_domains
from tests.factories import DomainFactory, eventually

WITHDRAWN = "/internal/domains/withdrawn"


async def attached(tenant: Tenant, document_id: str) -> list[dict]:
    domains: list[dict] = (await patch_domains(tenant, document_id, {})).data["domains"]
    return domains


async def test_released_domains_are_detached_and_an_address_on_them_dropped(
    tenant: Tenant, stranger: Tenant, domains: DomainFactory, content_service: ServiceClient
):
    gone, kept = await domains.create(tenant.org), await domains.create(tenant.org)
    on_gone = await tenant.create_page("docs/on-gone", domainIds=[gone["id"], kept["id"]], canonicalDomainId=gone["id"])
    on_kept = await tenant.create_page("docs/on-kept", domainIds=[gone["id"]], canonicalDomainId=kept["id"])
    untouched = await tenant.create_page("docs/untouched", domainIds=[kept["id"]])
    # Another organization's announcement changes nothing of this one's.
    status, body = await content_service.call("POST", WITHDRAWN, stranger.org, {"ids": [gone["id"]]})
    assert (status, body) == (200, {"documents": 0})
    status, body = await content_service.call("POST", WITHDRAWN, tenant.org, {"ids": [gone["id"]]})
    assert (status, body) == (200, {"documents": 2})
    assert await attached(tenant, on_gone["id"]) == [entry(kept)]
    assert (await tenant.document(on_gone["id"])).data["sourceUrl"] is None
    assert await attached(tenant, on_kept["id"]) == [entry(kept, True)]
    assert (await tenant.document(on_kept["id"])).data["sourceUrl"] == f"https://{kept['domain']}/docs/on-kept"
    assert await attached(tenant, untouched["id"]) == [entry(kept)]
    # Told again (an announcement repeated after a failure), nothing changes.
    status, body = await content_service.call("POST", WITHDRAWN, tenant.org, {"ids": [gone["id"]]})
    assert (status, body) == (200, {"documents": 0})


async def test_a_lapsed_claim_leaves_documents_once_the_apps_service_releases_it(
    stack: Stack, tenant: Tenant, domains: DomainFactory, aiohttp_server: Any
):
    claim = await domains.create(tenant.org)
    page = await tenant.create_page("docs/lapsing", domainIds=[claim["id"]], canonicalDomainId=claim["id"])
    async with create_pool(stack.database.dsn(APPS), APPS.schema, 1, 1) as pool, cursor(pool) as cur:
        await cur.execute(
            "UPDATE domains SET verified_at = NULL, expires_at = clock_timestamp() - interval '1 second' WHERE id = %s",
            (claim["id"],),
        )
    # Lapsed, the domain can no longer be attached, even before any sweep released it.
    other = await tenant.create_page("docs/other")
    answer = await patch_domains(tenant, other["id"], {"attach": [claim["id"]]})
    assert (answer.status, answer.body["details"]) == (422, {"attach.0": "No such domain in this organization."})
    # An apps service sweeping every second releases the claim and tells the content service.
    await aiohttp_server(build_app(APPS, stack.part_environ(APPS, DOMAIN_SWEEP_SECONDS="1")))

    async def detached() -> bool:
        return await attached(tenant, page["id"]) == []

    await eventually(detached)
    assert (await tenant.document(page["id"])).data["sourceUrl"] is None
