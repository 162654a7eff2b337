"""Shapes of the gateway's own public routes (documentation of what gateway/views.py answers)."""

from __future__ import annotations

from marshmallow import fields, validate

from libs.common.brand_fields import aliases_field, brand_name_field, domains_field
from libs.common.schemas import Ref
from libs.contract.api_keys import CredentialKey
from libs.contract.api_schema import ApiSchema


class Product(Ref):
    """A product of the organization."""


class Brand(ApiSchema):
    """How AI answers are searched for the product: its brand name (the product's name unless set),
    aliases and owned domains."""

    name = fields.String(required=True)
    aliases = fields.List(fields.String(), required=True)
    domains = fields.List(fields.String(), required=True)


class ProductDetail(Ref):
    """A product with its brand."""

    brand = fields.Nested(Brand, required=True)
    updated_at = fields.DateTime(required=True)


class BrandUpdate(ApiSchema):
    """Every field optional: only the supplied ones change; a null name goes back to the product's."""

    name = brand_name_field(allow_none=True)
    aliases = aliases_field()
    domains = domains_field()


class ProductUpdate(ApiSchema):
    brand = fields.Nested(BrandUpdate, required=True)


class Organization(Ref):
    """The organization a credential acts in."""


class CredentialUser(ApiSchema):
    id = fields.String(required=True)
    email = fields.String(required=True)
    name = fields.String(required=True)


class Credential(ApiSchema):
    # How the caller proved itself: an API key, a bearer token or a dashboard session.
    kind = fields.String(required=True, validate=validate.OneOf(["api_key", "bearer", "session"]))
    organization = fields.Nested(Organization, required=True)
    scopes = fields.List(fields.String(), required=True)
    # The user behind a bearer token or a session; null for an API key.
    user = fields.Nested(CredentialUser, required=True, allow_none=True)
    # The API key; null for a user.
    key = fields.Nested(CredentialKey, required=True, allow_none=True)
