"""Request and response shapes of the analytics part: the engine catalog and answers. The list
pages by keyset (`{items, nextCursor}`, newest first by `answeredAt`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from libs.common.cursors import PageCursor
from libs.contract.api_schema import ApiSchema
from libs.contract.engines import ENGINE_IDS
from libs.contract.validators import FullMatch, JsonInteger, StrictNumber, StrictString, UtcDateTime, UuidString, length

PAGE_MAX = 200
PAGE_DEFAULT = 50
TEXT_MAX = 200_000
PROMPT_MAX = 2000
CITATIONS_MAX = 200
SOURCES_MAX = 500
URL_MAX = 4096
ENGINE_PATTERN = r"^[a-z0-9][a-z0-9.-]{0,63}$"
ANSWER_STATUSES = ("completed", "failed", "empty", "refused")
CLASSIFICATIONS = ("owned", "competitor", "third_party")


class Engine(ApiSchema):
    id = fields.String(required=True)
    vendor = fields.String(required=True)
    name = fields.String(required=True)
    searches_web = fields.Boolean(required=True)
    model = fields.String(required=True)
    # Whether this deployment holds the vendor's key: an engine that is not is refused by runs.
    configured = fields.Boolean(required=True)


class EngineList(ApiSchema):
    items = fields.List(fields.Nested(Engine), required=True)


class PageIn(ApiSchema):
    url = StrictString(required=True, validate=length(1, URL_MAX))
    title = StrictString(load_default=None, allow_none=True, validate=length(0, 1000))


class UsageIn(ApiSchema):
    input_tokens = JsonInteger(load_default=None, allow_none=True, validate=validate.Range(min=0))
    output_tokens = JsonInteger(load_default=None, allow_none=True, validate=validate.Range(min=0))
    cost_usd = StrictNumber(load_default=None, allow_none=True, validate=validate.Range(min=0, max=1e8))


class AnswerIngest(ApiSchema):
    """An answer collected elsewhere. `id` is the collector's own: sending it again is the same
    answer (200), with another body a 409."""

    id = StrictString(required=True, validate=[length(1, 200), FullMatch(r"^[\x21-\x7e]+$", "Printable ASCII only.")])
    product_id = UuidString(required=True)
    # A tracked prompt of the product (its current version is recorded), or the prompt's text.
    prompt_id = UuidString(load_default=None, allow_none=True)
    prompt = StrictString(load_default=None, allow_none=True, validate=length(1, PROMPT_MAX))
    engine = StrictString(required=True, validate=FullMatch(ENGINE_PATTERN, "Lowercase letters, digits, . and -."))
    model = StrictString(required=True, validate=length(1, 200))
    status = StrictString(load_default="completed", validate=validate.OneOf(ANSWER_STATUSES))
    text = StrictString(required=True, validate=length(0, TEXT_MAX))
    citations = fields.List(fields.Nested(PageIn), load_default=list, validate=validate.Length(max=CITATIONS_MAX))
    sources = fields.List(fields.Nested(PageIn), load_default=list, validate=validate.Length(max=SOURCES_MAX))
    usage = fields.Nested(UsageIn, load_default=None, allow_none=True)
    answered_at = UtcDateTime(required=True)

    @validates_schema
    def _prompt_and_text(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("prompt_id") is None and data.get("prompt") is None:
            raise ValidationError("Send promptId (a tracked prompt) or prompt (its text).", "prompt")
        if data.get("status") == "completed" and not data.get("text", "").strip():
            raise ValidationError("A completed answer has text; send status empty for one without.", "text")


class AnswerListQuery(ApiSchema):
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(datetime.fromisoformat)
    product_id = UuidString()
    prompt_id = UuidString()
    run_id = UuidString()
    engine = fields.String(validate=FullMatch(ENGINE_PATTERN, "Lowercase letters, digits, . and -."))
    # The product's own brand mentioned (true) or not (false).
    brand_mentioned = fields.Boolean(truthy={"true", "1"}, falsy={"false", "0"})
    competitor_id = UuidString()
    domain = fields.String(validate=length(1, 253))
    from_ = UtcDateTime(data_key="from")
    to = UtcDateTime()


class Page(ApiSchema):
    url = fields.String(required=True)
    title = fields.String(required=True, allow_none=True)


class PromptRef(ApiSchema):
    id = fields.String(required=True, allow_none=True)
    version = fields.Integer(required=True, allow_none=True)
    text = fields.String(required=True)
    topic_id = fields.String(required=True, allow_none=True)


class Usage(ApiSchema):
    input_tokens = fields.Integer(required=True, allow_none=True)
    output_tokens = fields.Integer(required=True, allow_none=True)
    cost_usd = fields.Float(required=True, allow_none=True)


class TextSpan(ApiSchema):
    """A piece of the answer's text, by character offsets (Unicode code points)."""

    start = fields.Integer(
        required=True, metadata={"description": "The offset of its first character in the answer's text."}
    )
    end = fields.Integer(required=True, metadata={"description": "The offset after its last character."})


class Span(TextSpan):
    text = fields.String(required=True)
    # A near spelling, not one of the brand's names as written.
    fuzzy = fields.Boolean(required=True)


class Sentiment(ApiSchema):
    label = fields.String(required=True, validate=validate.OneOf(("positive", "neutral", "negative")))
    score = fields.Float(required=True)


class BrandMention(ApiSchema):
    kind = fields.String(required=True, validate=validate.OneOf(("brand", "competitor")))
    competitor_id = fields.String(required=True, allow_none=True)
    name = fields.String(required=True)
    mentions = fields.Integer(required=True)
    # 1 + the number of other tracked brands first mentioned earlier in the answer.
    position = fields.Integer(required=True)
    list_rank = fields.Integer(required=True, allow_none=True)
    bucket = fields.String(required=True, validate=validate.OneOf(("top", "middle", "bottom")))
    sentiment = fields.Nested(Sentiment, required=True)
    spans = fields.List(fields.Nested(Span), required=True)


class AppRouteLink(ApiSchema):
    """The App route of the organization's that served a cited page's path when the answer was analysed."""

    app_id = fields.String(required=True)
    route_id = fields.String(required=True, metadata={"description": "The id of the App's route."})
    path = fields.String(required=True, metadata={"description": "The route's path, as the route stores it."})
    href = fields.String(required=True, metadata={"description": "The route in the API (`GET` it for its target)."})


class Citation(ApiSchema):
    url = fields.String(required=True)
    host = fields.String(required=True)
    domain = fields.String(required=True)
    cited = fields.Boolean(required=True)
    classification = fields.String(required=True, validate=validate.OneOf(CLASSIFICATIONS))
    competitor_id = fields.String(required=True, allow_none=True)
    title = fields.String(required=True, allow_none=True)
    spans = fields.List(
        fields.Nested(TextSpan),
        required=True,
        metadata={
            "description": "Where the answer's text writes the page's URL, each spelling that normalises to it (with"
            " tracking parameters, a trailing slash); empty for a page only in the engine's citations or only"
            " retrieved, and in analyses of version 1."
        },
    )
    app_route = fields.Nested(
        AppRouteLink,
        required=True,
        allow_none=True,
        metadata={
            "description": "The organization's App route serving the page (a verified App domain and a route at its"
            " path); null for any other page."
        },
    )


class Analysis(ApiSchema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    competitor_set_version = fields.Integer(required=True)
    analysed_at = fields.DateTime(required=True)
    brands = fields.List(fields.Nested(BrandMention), required=True)
    citations = fields.List(fields.Nested(Citation), required=True)


class Answer(ApiSchema):
    id = fields.String(required=True)
    external_id = fields.String(required=True, allow_none=True)
    organization_id = fields.String(required=True)
    product_id = fields.String(required=True)
    source = fields.String(required=True, validate=validate.OneOf(("run", "ingested")))
    run_id = fields.String(required=True, allow_none=True)
    prompt = fields.Nested(PromptRef, required=True)
    engine = fields.String(required=True)
    model = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(ANSWER_STATUSES))
    text = fields.String(required=True)
    citations = fields.List(fields.Nested(Page), required=True)
    sources = fields.List(fields.Nested(Page), required=True)
    usage = fields.Nested(Usage, required=True)
    answered_at = fields.DateTime(required=True)
    created_at = fields.DateTime(required=True)
    # null until the answer is analysed (moments after it is stored).
    analysis = fields.Nested(Analysis, required=True, allow_none=True)


class AnswerList(ApiSchema):
    items = fields.List(fields.Nested(Answer), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


RUN_STATUSES = ("queued", "running", "completed", "partial", "failed", "cancelled")


class PromptRunCreate(ApiSchema):
    """A run of the product's active prompts, or of the ones named (active or paused)."""

    product_id = UuidString(required=True)
    prompt_ids = fields.List(UuidString(), validate=validate.Length(min=1, max=100))
    engines = fields.List(StrictString(validate=validate.OneOf(ENGINE_IDS)), validate=validate.Length(min=1))
    samples = JsonInteger(validate=validate.Range(min=1, max=5))


class PromptRunListQuery(ApiSchema):
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(datetime.fromisoformat)
    product_id = UuidString()
    status = fields.String(validate=validate.OneOf(RUN_STATUSES))


class PromptRunProgress(ApiSchema):
    total = fields.Integer(required=True)
    done = fields.Integer(required=True)
    failed = fields.Integer(required=True)


class PromptRunUsage(ApiSchema):
    input_tokens = fields.Integer(required=True)
    output_tokens = fields.Integer(required=True)
    cost_usd = fields.Float(required=True)


class PromptRun(ApiSchema):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    product_id = fields.String(required=True)
    trigger = fields.String(required=True, validate=validate.OneOf(("manual", "schedule")))
    status = fields.String(required=True, validate=validate.OneOf(RUN_STATUSES))
    prompt_ids = fields.List(fields.String(), required=True)
    engines = fields.List(fields.String(), required=True)
    samples = fields.Integer(required=True)
    progress = fields.Nested(PromptRunProgress, required=True)
    usage = fields.Nested(PromptRunUsage, required=True)
    created_at = fields.DateTime(required=True)
    started_at = fields.DateTime(required=True, allow_none=True)
    finished_at = fields.DateTime(required=True, allow_none=True)


class PromptRunList(ApiSchema):
    items = fields.List(fields.Nested(PromptRun), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class ReanalysisRequest(ApiSchema):
    product_id = UuidString(required=True)
    # Only these answers of the product (at most 1,000); left out, every answer of the product.
    answer_ids = fields.List(UuidString(), validate=validate.Length(min=1, max=1000))


class ReanalysisQueued(ApiSchema):
    queued = fields.Integer(required=True)
    analysis_version = fields.Integer(required=True)
