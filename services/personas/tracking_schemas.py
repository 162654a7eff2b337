"""Request and response shapes of competitors and tracked prompts. Their lists page by keyset
(`{items, nextCursor}`, newest first; libs/common/cursors.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from marshmallow import fields, validate

from libs.common.brand_fields import aliases_field, brand_name_field, domains_field
from libs.common.cursors import PageCursor
from libs.common.schemas import changes_to
from libs.contract.api_schema import ApiSchema
from libs.contract.engines import ENGINE_IDS
from libs.contract.validators import FullMatch, JsonInteger, StrictString, UuidString, length
from services.personas.schemas import ProductResource

PAGE_MAX = 200
PAGE_DEFAULT = 50
PROMPT_MAX = 2000
TAG_MAX = 64
TAGS_MAX = 20
SAMPLES_MAX = 5
CADENCES = ("daily", "weekly", "manual")
PROMPT_STATUSES = ("active", "paused", "archived")
# Set by archive and unarchive only.
SETTABLE_STATUSES = ("active", "paused")


class PageQuery(ApiSchema):
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(datetime.fromisoformat)


# Competitors.


class CompetitorCreate(ApiSchema):
    name = brand_name_field(required=True)
    aliases = aliases_field(load_default=list)
    domains = domains_field(load_default=list)


CompetitorUpdate = changes_to(CompetitorCreate, "CompetitorUpdate")


class Competitor(ProductResource):
    aliases = fields.List(fields.String(), required=True)
    domains = fields.List(fields.String(), required=True)
    # The product's competitor-set version as the answer was read (after this change, for a write).
    competitor_set_version = fields.Integer(required=True)


class CompetitorList(ApiSchema):
    items = fields.List(fields.Nested(Competitor), required=True)
    next_cursor = fields.String(required=True, allow_none=True)
    competitor_set_version = fields.Integer(required=True)


# Prompts.


def _tags_field(**kwargs: Any) -> fields.List[Any]:
    tag = StrictString(validate=[length(1, TAG_MAX), FullMatch(r"^[^\s,][^,]*$", "Must not start with a space.")])
    return fields.List(tag, validate=validate.Length(max=TAGS_MAX), **kwargs)


def _engines_field(**kwargs: Any) -> fields.List[Any]:
    engine = StrictString(validate=validate.OneOf(ENGINE_IDS))
    return fields.List(engine, validate=validate.Length(max=len(ENGINE_IDS)), **kwargs)


class PromptCreate(ApiSchema):
    text = StrictString(required=True, validate=length(1, PROMPT_MAX))
    topic_id = UuidString(load_default=None, allow_none=True)
    persona_id = UuidString(load_default=None, allow_none=True)
    tags = _tags_field(load_default=list)
    engines = _engines_field(load_default=list)
    cadence = StrictString(load_default="daily", validate=validate.OneOf(CADENCES))
    samples = JsonInteger(load_default=1, validate=validate.Range(min=1, max=SAMPLES_MAX))
    status = StrictString(load_default="active", validate=validate.OneOf(SETTABLE_STATUSES))


PromptUpdate = changes_to(
    PromptCreate, "PromptUpdate", "Every field optional: only the supplied ones change; a new text is a new version."
)


class Prompt(ApiSchema):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    product_id = fields.String(required=True)
    text = fields.String(required=True)
    topic_id = fields.String(required=True, allow_none=True)
    persona_id = fields.String(required=True, allow_none=True)
    suggestion_id = fields.String(required=True, allow_none=True)
    tags = fields.List(fields.String(), required=True)
    engines = fields.List(fields.String(), required=True)
    cadence = fields.String(required=True, validate=validate.OneOf(CADENCES))
    samples = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(PROMPT_STATUSES))
    version = fields.Integer(required=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)


class PromptListQuery(PageQuery):
    status = fields.String(validate=validate.OneOf(PROMPT_STATUSES))
    topic_id = UuidString()
    persona_id = UuidString()
    tag = fields.String(validate=length(1, TAG_MAX))
    engine = fields.String(validate=validate.OneOf(ENGINE_IDS))
    cadence = fields.String(validate=validate.OneOf(CADENCES))


class PromptList(ApiSchema):
    items = fields.List(fields.Nested(Prompt), required=True)
    next_cursor = fields.String(required=True, allow_none=True)
