"""Shapes of the endpoints other parts call (docs/architecture.md, "Internal contracts")."""

from __future__ import annotations

from marshmallow import fields, validate

from libs.common.schemas import ApiSchema
from libs.common.validators import StrictString, UuidString, length
from services.content.schemas.fields import STATUSES

LOOKUP_MAX = 500
PAGE_DEFAULT, PAGE_MAX = 100, 500


class DocumentLookup(ApiSchema):
    ids = fields.List(UuidString(), required=True, validate=length(1, LOOKUP_MAX))


class ProductDocumentsQuery(ApiSchema):
    status = StrictString(load_default="published", validate=validate.OneOf(STATUSES))


class OrganizationDocumentsQuery(ApiSchema):
    after = UuidString()
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))


class Indexed(ApiSchema):
    last_indexed_at = fields.AwareDateTime(required=True)
