"""The gateway's own resources as its answers and webhook payloads show them, each declared once by
its response schema (libs/common/shapes.py): `SHAPE.columns` to read a row, `SHAPE.of(row)` for
the answer or the event's `data`."""

from __future__ import annotations

from gateway import schemas
from libs.common.shapes import Shape, as_text
from libs.contract import api_keys

ID_AS_TEXT = {"id": as_text("id")}

PRODUCT = Shape(schemas.Product, computed=ID_AS_TEXT, extra_columns=("id",))
# The brand's name is the product's unless set.
BRAND = Shape(
    schemas.Brand,
    computed={
        "name": lambda row: row["brand_name"] or row["name"],
        "aliases": lambda row: row["brand_aliases"],
        "domains": lambda row: row["owned_domains"],
    },
    extra_columns=("name", "brand_name", "brand_aliases", "owned_domains"),
)
PRODUCT_DETAIL = Shape(
    schemas.ProductDetail,
    computed={**ID_AS_TEXT, "brand": BRAND.of},
    # The brand's columns; the organization's, for the rules of the reads.
    extra_columns=("id", "organization_id", "brand_name", "brand_aliases", "owned_domains"),
)

CREDENTIAL_USER = Shape(schemas.CredentialUser, computed=ID_AS_TEXT, extra_columns=("id",))
CREDENTIAL_KEY = Shape(api_keys.CredentialKey, computed=ID_AS_TEXT, extra_columns=("id",))
# A key as stored; `organization_id` and `last_used_at` are read for the dashboard's pages and the
# rules of changes, never in an event.
API_KEY = Shape(api_keys.ApiKey, computed=ID_AS_TEXT, extra_columns=("id", "organization_id", "last_used_at"))
# What an `api_key.*` event carries: the key, who changed it and the change's details.
API_KEY_CHANGE = Shape(api_keys.ApiKeyChange, computed=ID_AS_TEXT, extra_columns=("id",))
