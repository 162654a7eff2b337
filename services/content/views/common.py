"""What the content handlers share: the scope object of a site-page operation."""

from __future__ import annotations

from typing import Any

from libs.common.internal_token import Caller, Product


def scope_of(caller: Caller, product: Product) -> dict[str, Any]:
    """The contract's scope object: the product and the organization of a site-page operation."""
    return {"product": product.to_dict(), "organization": caller.org.to_dict()}
