"""Shapes of the endpoints other parts call (docs/architecture.md, "Internal contracts")."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from libs.common.schemas import ApiSchema
from libs.common.validators import ROUTE_PATH_MAX, StrictString, UuidList, UuidString, length
from services.content.schemas.fields import STATUSES

LOOKUP_MAX = 500
PAGE_DEFAULT, PAGE_MAX = 100, 500
# Route targets: the products of one app, a page of their documents, the ids counted at once.
TARGET_PRODUCTS_MAX = 100
TARGET_PAGE_MAX = 1000
TARGET_COUNT_IDS_MAX = 10_000
# An App's routed documents, listed for agents at most this many a call; their text fewer at once.
LISTED_IDS_MAX = 10_000
TEXT_IDS_MAX = 50


class DocumentLookup(ApiSchema):
    ids = fields.List(UuidString(), required=True, validate=length(1, LOOKUP_MAX))


class DomainsWithdrawn(ApiSchema):
    ids = fields.List(UuidString(), required=True, validate=length(1, LOOKUP_MAX))


def target_status() -> StrictString:
    return StrictString(load_default="published", validate=validate.OneOf(STATUSES))


def target_products(**kwargs: Any) -> fields.List[str]:
    return fields.List(UuidString(), required=True, validate=length(1, TARGET_PRODUCTS_MAX), **kwargs)


class TargetsQuery(ApiSchema):
    """A page of the products' documents as route targets, after the document (afterPath, afterId)."""

    # Repeated in the query string: productId=…&productId=…
    product_id = target_products()
    status = target_status()
    after_path = StrictString(validate=length(0, ROUTE_PATH_MAX))
    after_id = UuidString()
    limit = fields.Integer(load_default=TARGET_PAGE_MAX, validate=validate.Range(min=1, max=TARGET_PAGE_MAX))

    @validates_schema
    def _after_names_one_document(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("after_path" in data) != ("after_id" in data):
            raise ValidationError("afterPath and afterId are given together.", "afterId")


class TargetCount(ApiSchema):
    product_ids = target_products()
    status = target_status()
    # Count only these documents (the ones an app routes, say).
    ids = UuidList(validate=length(0, TARGET_COUNT_IDS_MAX))


class DocumentsListed(ApiSchema):
    ids = UuidList(required=True, validate=length(1, LISTED_IDS_MAX))


class DocumentsText(ApiSchema):
    ids = UuidList(required=True, validate=length(1, TEXT_IDS_MAX))


class OrganizationDocumentsQuery(ApiSchema):
    after = UuidString()
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))


class Indexed(ApiSchema):
    last_indexed_at = fields.AwareDateTime(required=True)
