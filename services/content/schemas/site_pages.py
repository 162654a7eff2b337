"""Shapes of the site-page operations.

Item fields of the bulk operations are validated with the request: a malformed item makes the
whole request a 422, while a well-formed item that cannot be applied (an unknown page, a path
already taken, a domain that is not the organization's) fails alone, in `failed`.
"""

from __future__ import annotations

from marshmallow import fields, validate

from libs.contract.api_schema import ApiSchema
from libs.contract.validators import QueryBoolean, StrictBoolean, StrictString, UuidString, hostname_validators, length
from services.content.schemas.fields import (
    STATUSES,
    TITLE_MAX,
    URL_MAX,
    domain_ids_field,
    file_path_field,
    matching,
    nullable_string,
    redirect_field,
    status_field,
    status_out,
    text_field,
    title_field,
)
from services.content.schemas.shared import Scope, domain_entries

ORDER_BY = ("createdAt", "updatedAt")
DIRECTIONS = ("asc", "desc")
PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX = 20, 100
PAGE_MAX = 1_000_000
CREATE_MAX = UPDATE_MAX = 25
DELETE_MAX = 50
QUERY_MAX = 200
TYPE_MAX = 64
SLUG_MAX = 2047
# Lowercase words joined by single hyphens, in one or more "/"-separated segments: "blog/launch-day".
SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$"
SLUG_MESSAGE = "Must be lowercase words and hyphens, in /-separated segments."


class SitePagesQuery(ApiSchema):
    product_id = UuidString(required=True)
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=PAGE_MAX))
    page_size = fields.Integer(load_default=PAGE_SIZE_DEFAULT, validate=validate.Range(min=1, max=PAGE_SIZE_MAX))
    query = StrictString(validate=length(1, QUERY_MAX))
    status = StrictString(validate=validate.OneOf(STATUSES))
    type = StrictString(validate=length(1, TYPE_MAX))
    is_manual = QueryBoolean()
    path_prefix = StrictString(validate=length(1, URL_MAX))
    has_content = QueryBoolean()
    domain_id = UuidString()
    domain = StrictString(validate=hostname_validators())
    order_by = StrictString(load_default="updatedAt", validate=validate.OneOf(ORDER_BY))
    order_by_direction = StrictString(load_default="desc", validate=validate.OneOf(DIRECTIONS))


class PageCreate(ApiSchema):
    slug = matching(SLUG_PATTERN, SLUG_MESSAGE, SLUG_MAX, minimum=1, required=True)
    title = title_field(required=True)
    content = StrictString()
    description = text_field()
    meta_title = text_field(TITLE_MAX)
    meta_description = text_field()
    status = status_field()
    domain_ids = domain_ids_field()
    canonical_domain_id = UuidString()


class PagesCreate(ApiSchema):
    product_id = UuidString(required=True)
    pages = fields.List(fields.Nested(PageCreate), required=True, validate=length(1, CREATE_MAX))


class PageUpdate(ApiSchema):
    id = StrictString(required=True, validate=length(1))
    title = title_field()
    content = StrictString()
    description = text_field()
    meta_title = text_field(TITLE_MAX)
    meta_description = text_field()
    file_path = file_path_field()
    status = status_field()
    is_manual = StrictBoolean()
    no_index = StrictBoolean()
    redirect_to_url = redirect_field()
    attach_domain_ids = domain_ids_field()
    detach_domain_ids = domain_ids_field()
    canonical_domain_id = UuidString()


class PagesUpdate(ApiSchema):
    product_id = UuidString(required=True)
    pages = fields.List(fields.Nested(PageUpdate), required=True, validate=length(1, UPDATE_MAX))


class PagesDelete(ApiSchema):
    product_id = UuidString(required=True)
    page_ids = fields.List(StrictString(validate=length(1)), required=True, validate=length(1, DELETE_MAX))


class SitePage(ApiSchema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    file_path = fields.String(required=True)
    source_url = nullable_string()
    status = status_out()
    type = fields.String(required=True)
    is_manual = fields.Boolean(required=True)
    meta_title = nullable_string()
    meta_description = nullable_string()
    published_at = fields.DateTime(required=True, allow_none=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    domains = domain_entries()


class SitePageList(ApiSchema):
    scope = fields.Nested(Scope, required=True)
    page = fields.Integer(required=True)
    page_size = fields.Integer(required=True)
    query = nullable_string()
    status = status_out(allow_none=True)
    type = nullable_string()
    is_manual = fields.Boolean(required=True, allow_none=True)
    path_prefix = nullable_string()
    has_content = fields.Boolean(required=True, allow_none=True)
    domain_id = nullable_string()
    domain = nullable_string()
    order_by = fields.String(required=True, validate=validate.OneOf(ORDER_BY))
    order_by_direction = fields.String(required=True, validate=validate.OneOf(DIRECTIONS))
    total = fields.Integer(required=True)
    total_pages = fields.Integer(required=True)
    items = fields.List(fields.Nested(SitePage), required=True)


class FailedPage(ApiSchema):
    id = nullable_string()
    slug = nullable_string()
    message = fields.String(required=True)


class CreatedPage(ApiSchema):
    id = fields.String(required=True)
    slug = fields.String(required=True)
    title = fields.String(required=True)
    source_url = nullable_string()
    status = status_out()
    domains = domain_entries()


class PagesCreated(ApiSchema):
    scope = fields.Nested(Scope, required=True)
    created_count = fields.Integer(required=True)
    failed_count = fields.Integer(required=True)
    created = fields.List(fields.Nested(CreatedPage), required=True)
    failed = fields.List(fields.Nested(FailedPage), required=True)


class UpdatedPage(ApiSchema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    file_path = fields.String(required=True)
    source_url = nullable_string()
    status = status_out()
    is_manual = fields.Boolean(required=True)
    domains = domain_entries()


class PagesUpdated(ApiSchema):
    scope = fields.Nested(Scope, required=True)
    updated_count = fields.Integer(required=True)
    failed_count = fields.Integer(required=True)
    updated = fields.List(fields.Nested(UpdatedPage), required=True)
    failed = fields.List(fields.Nested(FailedPage), required=True)


class DeletedPage(ApiSchema):
    id = fields.String(required=True)
    title = fields.String(required=True)


class PagesDeleted(ApiSchema):
    scope = fields.Nested(Scope, required=True)
    deleted_count = fields.Integer(required=True)
    failed_count = fields.Integer(required=True)
    deleted = fields.List(fields.Nested(DeletedPage), required=True)
    failed = fields.List(fields.Nested(FailedPage), required=True)
