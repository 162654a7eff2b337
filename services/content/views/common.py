"""What the content handlers share: the product a request is about, and its scope object."""

from __future__ import annotations

from typing import Any

from libs.common.errors import NotFound
from libs.common.internal_token import Caller, Product


def checked_product(caller: Caller, product_id: str) -> Product:
    """The product the gateway checked for this request; anything else is not the caller's to see."""
    if caller.product is None or caller.product.id != product_id:
        raise NotFound("product not found")
    return caller.product


def scope_of(caller: Caller, product: Product) -> dict[str, Any]:
    """The contract's scope object: the product and the organization of a site-page operation."""
    return {"product": product.to_dict(), "organization": caller.org.to_dict()}
