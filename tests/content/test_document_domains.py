"""PATCH /api/v1/content/{id}/domains: attach, detach and choose the canonical domain."""

from __future__ import annotations

import uuid

from tests.content.api import Tenant
from tests.factories import DomainFactory


def entry(domain: dict, canonical: bool = False) -> dict:
    return {"id": domain["id"], "domain": domain["domain"], "isCanonical": canonical}


async def patch_domains(tenant: Tenant, document_id: str, body: dict):
    return await tenant.call("PATCH", f"/api/v1/content/{document_id}/domains", body)


async def test_attach_and_choose_a_canonical_domain(tenant: Tenant, domains: DomainFactory):
    one, two = await domains.create(tenant.org, "b.example.com"), await domains.create(tenant.org, "a.example.com")
    created = await tenant.create_page("docs/page")
    answer = await patch_domains(
        tenant, created["id"], {"attach": [one["id"], two["id"]], "canonicalDomainId": one["id"]}
    )
    assert answer.status == 200
    assert answer.data == {"id": created["id"], "domains": [entry(one, True), entry(two)]}
    stored = (await tenant.document(created["id"])).data
    assert stored["sourceUrl"] == "https://b.example.com/docs/page"


async def test_the_canonical_domain_moves_and_the_address_follows(tenant: Tenant, domains: DomainFactory):
    one, two = await domains.create(tenant.org), await domains.create(tenant.org)
    created = await tenant.create_page("moving", domainIds=[one["id"], two["id"]], canonicalDomainId=one["id"])
    answer = await patch_domains(tenant, created["id"], {"canonicalDomainId": two["id"]})
    assert answer.data["domains"] == [entry(two, True), entry(one)]
    assert (await tenant.document(created["id"])).data["sourceUrl"] == f"https://{two['domain']}/moving"


async def test_detaching_the_canonical_domain_leaves_none_canonical(tenant: Tenant, domains: DomainFactory):
    one, two = await domains.create(tenant.org), await domains.create(tenant.org)
    created = await tenant.create_page("left", domainIds=[two["id"]], canonicalDomainId=one["id"])
    answer = await patch_domains(tenant, created["id"], {"detach": [one["id"]]})
    assert answer.data["domains"] == [entry(two)]
    again = await patch_domains(tenant, created["id"], {"attach": [one["id"]]})
    assert again.data["domains"] == sorted([entry(one), entry(two)], key=lambda item: item["domain"])


async def test_unknown_and_foreign_ids_to_attach_are_422(tenant: Tenant, stranger: Tenant, domains: DomainFactory):
    mine, theirs = await domains.create(tenant.org), await domains.create(stranger.org)
    created = await tenant.create_page("guarded")
    unknown = str(uuid.uuid4())
    answer = await patch_domains(
        tenant, created["id"], {"attach": [mine["id"], theirs["id"]], "detach": [unknown], "canonicalDomainId": unknown}
    )
    assert (answer.status, answer.body["code"]) == (422, "VALIDATION_FAILED")
    message = "No such domain in this organization."
    assert answer.body["details"] == {"attach.1": message, "canonicalDomainId": message}
    assert theirs["domain"] not in str(answer.body)
    assert (await patch_domains(tenant, created["id"], {})).data["domains"] == []


async def test_contradictory_changes_are_422(tenant: Tenant, domains: DomainFactory):
    one = await domains.create(tenant.org)
    created = await tenant.create_page("contradiction")
    answer = await patch_domains(tenant, created["id"], {"attach": [one["id"]], "detach": [one["id"]]})
    assert answer.body["details"] == {"detach.0": "Cannot be both attached and detached."}
    answer = await patch_domains(tenant, created["id"], {"detach": [one["id"]], "canonicalDomainId": one["id"]})
    assert answer.body["details"] == {"canonicalDomainId": "The canonical domain cannot be detached."}


async def test_ids_must_be_uuids(tenant: Tenant):
    created = await tenant.create_page("typed")
    answer = await patch_domains(tenant, created["id"], {"attach": ["example.com"]})
    assert answer.body["details"] == {"attach.0": "Not a valid UUID."}


async def test_another_organizations_document_is_404(tenant: Tenant, stranger: Tenant, domains: DomainFactory):
    theirs = await stranger.create_page("theirs")
    mine = await domains.create(tenant.org)
    answer = await patch_domains(tenant, theirs["id"], {"attach": [mine["id"]]})
    assert (answer.status, answer.body["code"]) == (404, "NOT_FOUND")
