"""The gateway's own public routes: what the identity schema it owns can answer.

Declarations only (libs/contract/route.py), compiled with the services' routes: the same
credential, rate-limit, scope and tenancy checks, then the gateway's handler instead of a service.
"""

from __future__ import annotations

from gateway import schemas
from libs.contract.api_keys import API_KEY_EVENTS
from libs.contract.event import Event
from libs.contract.route import Route

PART = "gateway"

ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/api/v1/products",
        PART,
        "products:read",
        "products_list",
        "List the organization's products, by name",
        response=schemas.Product,
        response_many=True,
        tag="Products",
    ),
    Route(
        "GET",
        "/api/v1/products/{productId}",
        PART,
        "products:read",
        "products_get",
        "Get a product with its brand",
        product_param="productId",
        response=schemas.ProductDetail,
        tag="Products",
    ),
    Route(
        "PATCH",
        "/api/v1/products/{productId}",
        PART,
        "products:write",
        "products_update",
        "Change a product's brand: its name, aliases and owned domains",
        product_param="productId",
        body=schemas.ProductUpdate,
        response=schemas.ProductDetail,
        tag="Products",
    ),
    # Any verified credential may ask what it is: a key holding one narrow scope included.
    Route(
        "GET",
        "/api/v1/credential",
        PART,
        None,
        "credential_get",
        "The credential of this request: its organization, scopes, and user or API key",
        response=schemas.Credential,
        tag="Identity",
    ),
)

# Recorded by the functions that change a key, declared where the events part reads them too.
EVENTS: tuple[Event, ...] = API_KEY_EVENTS
