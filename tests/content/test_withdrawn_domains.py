"""A domain deleted on its own, or of a purged app, leaves documents once the apps service announces
it; one deleted with its app stays attached through a restore; a dangling id may always be detached."""

from __future__ import annotations

from typing import Any

import pytest

from libs.contract.parts import APPS
from services.apps.purge import purge_expired
from tests.apps.test_app_restore import RESTORE_DAYS, backdate
from tests.conftest import Stack, build_app
from tests.content.api import Tenant
from tests.content.test_document_domains import entry, patch_domains
from tests.content.test_released_domains import attached
from tests.factories import DomainFactory, eventually


@pytest.fixture
async def sweeping(stack: Stack, aiohttp_server: Any) -> None:
    """An apps service announcing withdrawn domains to the content service every second."""
    await aiohttp_server(build_app(APPS, stack.part_environ(APPS, DOMAIN_SWEEP_SECONDS="1")))


async def app_with_domain(tenant: Tenant, name: str = "Docs site") -> tuple[dict, dict]:
    app = (await tenant.call("POST", "/api/v1/apps", {"name": name})).data
    answer = await tenant.call("POST", f"/api/v1/apps/{app['id']}/domains", {"domain": f"{app['id']}.example.com"})
    assert answer.status == 201, answer.body
    return app, answer.data


async def listed(tenant: Tenant, page: dict) -> list[dict]:
    """The page's domains as the site-page list shows them."""
    (item,) = [item for item in (await tenant.list_pages()).data["items"] if item["id"] == page["id"]]
    domains: list[dict] = item["domains"]
    return domains


async def gone_from(tenant: Tenant, page: dict, domain: dict) -> None:
    async def detached() -> bool:
        return domain["id"] not in [item["id"] for item in await listed(tenant, page)]

    await eventually(detached)


async def test_a_deleted_domain_leaves_its_documents(tenant: Tenant, domains: DomainFactory, sweeping: None):
    app, deleted = await app_with_domain(tenant)
    kept = await domains.create(tenant.org)
    page = await tenant.create_page(
        "docs/deleted", domainIds=[deleted["id"], kept["id"]], canonicalDomainId=deleted["id"]
    )
    assert (await tenant.document(page["id"])).data["sourceUrl"] == f"https://{deleted['domain']}/docs/deleted"
    assert (await tenant.call("DELETE", f"/api/v1/apps/{app['id']}/domains/{deleted['id']}")).status == 200
    await gone_from(tenant, page, deleted)
    assert await listed(tenant, page) == [entry(kept)]
    assert (await tenant.document(page["id"])).data["sourceUrl"] is None


async def test_the_domains_of_a_purged_app_leave_their_documents(
    tenant: Tenant, domains: DomainFactory, sweeping: None
):
    app, domain = await app_with_domain(tenant)
    page = await tenant.create_page("docs/purged", domainIds=[domain["id"]])
    assert (await tenant.call("DELETE", f"/api/v1/apps/{app['id']}")).status == 200
    await backdate(domains.pool, app, RESTORE_DAYS + 1)
    assert await purge_expired(domains.pool, RESTORE_DAYS) >= 1
    await gone_from(tenant, page, domain)
    assert await listed(tenant, page) == []


async def test_an_app_deleted_and_restored_keeps_its_attachments(tenant: Tenant, sweeping: None):
    app, domain = await app_with_domain(tenant)
    other, witness = await app_with_domain(tenant, "Witness")
    page = await tenant.create_page("docs/restored", domainIds=[domain["id"]], canonicalDomainId=domain["id"])
    on_witness = await tenant.create_page("docs/witness", domainIds=[witness["id"]])
    before = (await tenant.document(page["id"])).data
    assert (await tenant.call("DELETE", f"/api/v1/apps/{app['id']}")).status == 200
    # The witness, deleted after the app, leaves its page: a sweep has run while the app was deleted.
    assert (await tenant.call("DELETE", f"/api/v1/apps/{other['id']}/domains/{witness['id']}")).status == 200
    await gone_from(tenant, on_witness, witness)
    assert await listed(tenant, page) == [entry(domain, True)]
    assert (await tenant.call("POST", f"/api/v1/apps/{app['id']}/restore")).status == 200
    assert await attached(tenant, page["id"]) == [entry(domain, True)]
    assert (await tenant.document(page["id"])).data == before


async def test_an_id_apps_no_longer_resolves_can_be_detached(tenant: Tenant):
    app, domain = await app_with_domain(tenant)
    page = await tenant.create_page("docs/dangling", domainIds=[domain["id"]])
    assert (await tenant.call("DELETE", f"/api/v1/apps/{app['id']}/domains/{domain['id']}")).status == 200
    # Not announced yet (the stack's sweep runs once a minute): the attachment dangles.
    assert await listed(tenant, page) == [entry(domain)]
    answer = await patch_domains(tenant, page["id"], {"detach": [domain["id"]]})
    assert (answer.status, answer.data) == (200, {"id": page["id"], "domains": []})
    assert await listed(tenant, page) == []
    # Attaching it again is still refused.
    answer = await patch_domains(tenant, page["id"], {"attach": [domain["id"]]})
    assert (answer.status, answer.body["details"]) == (422, {"attach.0": "No such domain in this organization."})
