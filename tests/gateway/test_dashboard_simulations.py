"""The simulations page over HTTP: who sees the forms, and another organization's page is a 404."""

from __future__ import annotations

from tests.conftest import Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import page, signed_in


async def test_a_viewer_reads_the_page_without_forms_and_an_owner_gets_them(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    viewer = await signed_in(stack.gateway, *await identity.account((org, "viewer")))
    html = await page(viewer, f"/{org.slug}/simulations")
    assert "Agent simulations" in html and "No tasks yet" in html and "Save task" not in html
    owner = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    assert "Save task" in await page(owner, f"/{org.slug}/simulations")
