"""Request and response shapes of the personas service.

Responses are built as dicts by the queries; the response schemas here document them in
OpenAPI. Lists page with `limit` (1-200, default 50) and `offset` (0-1,000,000,000), and answer the
page with the `total` matching the filters.
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from libs.common.schemas import Timestamps, changes_to
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import StrictBoolean, StrictString, UuidString, length

NAME_MAX = 200
DESCRIPTION_MAX = 4000
SYSTEM_PROMPT_MAX = 20_000
MAX_LIMIT = 200
DEFAULT_LIMIT = 50
# Far past any real list, and well inside PostgreSQL's bigint, which a larger OFFSET overflows.
MAX_OFFSET = 1_000_000_000
SUGGESTION_STATUSES = ("pending", "accepted", "rejected")


def name_field(**kwargs: Any) -> StrictString:
    return StrictString(validate=length(1, NAME_MAX), **kwargs)


def description_field(**kwargs: Any) -> StrictString:
    return StrictString(validate=length(1, DESCRIPTION_MAX), **kwargs)


def system_prompt_field(**kwargs: Any) -> StrictString:
    return StrictString(allow_none=True, validate=length(maximum=SYSTEM_PROMPT_MAX), **kwargs)


class PageQuery(ApiSchema):
    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(min=1, max=MAX_LIMIT))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_OFFSET))


class PersonaCreate(ApiSchema):
    name = name_field(required=True)
    description = description_field(required=True)
    system_prompt = system_prompt_field(load_default=None)


PersonaUpdate = changes_to(PersonaCreate, "PersonaUpdate")


class ProductResource(Timestamps):
    """A named resource of a product, soft-deleted (a persona, a competitor)."""

    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    product_id = fields.String(required=True)
    name = fields.String(required=True)


class Persona(ProductResource):
    description = fields.String(required=True)
    system_prompt = fields.String(required=True, allow_none=True)


class PersonaList(ApiSchema):
    personas = fields.List(fields.Nested(Persona), required=True)
    total = fields.Integer(required=True)


class TopicCreate(ApiSchema):
    name = name_field(required=True)
    description = description_field(load_default=None, allow_none=True)


class Topic(ApiSchema):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    product_id = fields.String(required=True)
    name = fields.String(required=True)
    description = fields.String(required=True, allow_none=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)


class TopicList(ApiSchema):
    topics = fields.List(fields.Nested(Topic), required=True)
    total = fields.Integer(required=True)


class SuggestionListQuery(PageQuery):
    product_id = UuidString(required=True)
    topic_id = UuidString()
    status = fields.String(validate=validate.OneOf(SUGGESTION_STATUSES))


class SuggestionReview(ApiSchema):
    status = StrictString(required=True, validate=validate.OneOf(SUGGESTION_STATUSES))
    # With `accepted`: track the suggestion as a prompt of its product (once; again, the same prompt).
    track = StrictBoolean(load_default=False)

    @validates_schema
    def _track_when_accepted(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("track") and data.get("status") != "accepted":
            raise ValidationError("Only an accepted suggestion is tracked.", "track")


class Suggestion(ApiSchema):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    product_id = fields.String(required=True)
    topic_id = fields.String(required=True)
    persona_id = fields.String(required=True, allow_none=True)
    prompt = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(SUGGESTION_STATUSES))
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)


class SuggestionReviewed(Suggestion):
    """A review's answer: the suggestion, and with `track` the tracked prompt made from it."""

    tracked_prompt_id = fields.String()


class SuggestionList(ApiSchema):
    suggestions = fields.List(fields.Nested(Suggestion), required=True)
    total = fields.Integer(required=True)


class RegenerateRequest(ApiSchema):
    product_id = UuidString(required=True)


class RegenerateResult(ApiSchema):
    count = fields.Integer(required=True)
    ids = fields.List(fields.String(), required=True)


class SuggestionsRegenerated(RegenerateResult):
    """What `prompt_suggestions.regenerated` carries: the product's new suggestions."""

    product_id = fields.String(required=True)
