"""Fixtures of the tests over several real services."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import AppsProducts, IdentityFactory, Org


@pytest.fixture
async def tenant(identity: IdentityFactory, apps_products: AppsProducts) -> tuple[Org, dict[str, Any], dict[str, str]]:
    """An organization with a product apps knows, and the headers of an API key of every scope."""
    org = await identity.organization()
    product = await identity.product(org, "Widget")
    await apps_products.until_known(product)
    return org, product, {"x-api-key": await identity.api_key(org)}
