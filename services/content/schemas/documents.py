"""Shapes of the content-document operations."""

from __future__ import annotations

from marshmallow import fields, validate

from libs.common.schemas import Timestamps
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import (
    PRIORITY_MAX,
    PRIORITY_MIN,
    StrictBoolean,
    StrictString,
    UuidString,
    length,
    priority_field,
)
from services.content.schemas.fields import (
    TITLE_MAX,
    URL_MAX,
    domain_ids_field,
    file_path_field,
    nullable_string,
    redirect_field,
    status_out,
    text_field,
    title_field,
    url_field,
)
from services.content.schemas.shared import domain_entries

SELECTOR_MAX = 1000
TAGS_MAX, TAG_MAX = 50, 100


class ContentByPathQuery(ApiSchema):
    brand_id = UuidString(required=True)
    path = StrictString(required=True, validate=length(1, URL_MAX))


class PriorityUpdate(ApiSchema):
    priority = priority_field(required=True)


class ContentUpdate(ApiSchema):
    file_path = file_path_field()
    title = title_field()
    content = StrictString()
    source_url = url_field()
    css_selector = text_field(SELECTOR_MAX)
    css_exclude_selector = text_field(SELECTOR_MAX)
    redirect_to_url = redirect_field()
    description = text_field()
    description_for_agent = text_field()
    meta_title = text_field(TITLE_MAX)
    meta_description = text_field()
    canonical_url = url_field()
    og_title = text_field(TITLE_MAX)
    og_description = text_field()
    og_image = url_field()
    twitter_title = text_field(TITLE_MAX)
    twitter_description = text_field()
    twitter_image = url_field()
    tiptap_json = fields.Raw(allow_none=True)
    no_index = StrictBoolean()
    tags = fields.List(StrictString(validate=length(1, TAG_MAX)), validate=length(0, TAGS_MAX))
    priority = priority_field()


class DomainsUpdate(ApiSchema):
    attach = domain_ids_field()
    detach = domain_ids_field()
    canonical_domain_id = UuidString()


class ContentDocument(Timestamps):
    id = fields.String(required=True)
    last_indexed_at = fields.DateTime(required=True, allow_none=True)
    published_at = fields.DateTime(required=True, allow_none=True)
    file_path = fields.String(required=True)
    title = fields.String(required=True)
    content = fields.String(required=True)
    source_url = nullable_string()
    css_selector = nullable_string()
    css_exclude_selector = nullable_string()
    source_checksum = nullable_string()
    brand_id = fields.String(required=True)
    is_manual = fields.Boolean(required=True)
    canonical_url = nullable_string()
    description = nullable_string()
    description_for_agent = nullable_string()
    image = nullable_string()
    meta_title = nullable_string()
    meta_description = nullable_string()
    no_index = fields.Boolean(required=True)
    og_title = nullable_string()
    og_description = nullable_string()
    og_image = nullable_string()
    twitter_title = nullable_string()
    twitter_description = nullable_string()
    twitter_image = nullable_string()
    type = fields.String(required=True)
    tags = fields.List(fields.String(), required=True)
    current_draft_id = nullable_string()
    status = status_out()
    priority = fields.Float(required=True, validate=validate.Range(min=PRIORITY_MIN, max=PRIORITY_MAX))
    prompt_id = nullable_string()
    redirect_to_url = nullable_string()
    metadata = fields.Raw(required=True, allow_none=True)
    tiptap_json = fields.Raw(required=True, allow_none=True)


class ContentByPath(ApiSchema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    content = fields.String(required=True)
    file_path = fields.String(required=True)
    source_url = nullable_string()
    description = nullable_string()


class DocumentDomains(ApiSchema):
    id = fields.String(required=True)
    domains = domain_entries()
