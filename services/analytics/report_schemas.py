"""Request and response shapes of the analytics reports. Every ratio carries what it was computed
from (services/analytics/metrics.py): a proportion `{value, count, total, interval}`, a mean
`{value, sum, count}`. Periods are UTC dates, closed-open: `[from, to)`."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from libs.common.schemas import ApiSchema, Ratio
from libs.common.validators import UuidString, is_uuid
from services.analytics.brand_sets import BRAND

# The longest period a report reads.
PERIOD_MAX_DAYS = 366
# The period of an overview asked without one: the last 30 days, today included.
PERIOD_DEFAULT_DAYS = 30


def default_period(today: date | None = None) -> tuple[date, date]:
    end = (today or datetime.now(UTC).date()) + timedelta(days=1)
    return end - timedelta(days=PERIOD_DEFAULT_DAYS), end


def check_period(start: date, end: date, field: str = "to") -> None:
    """A period is at least a day and at most PERIOD_MAX_DAYS; a 422 naming `field` otherwise."""
    if end <= start:
        raise ValidationError("Must be after from (the period is [from, to)).", field)
    if (end - start).days > PERIOD_MAX_DAYS:
        raise ValidationError(f"A period is at most {PERIOD_MAX_DAYS} days.", field)


class OverviewQuery(ApiSchema):
    from_ = fields.Date(data_key="from")
    to = fields.Date()

    @validates_schema
    def _period(self, data: dict[str, Any], **_: Any) -> None:
        if ("from_" in data) != ("to" in data):
            raise ValidationError("Send from and to together, or neither (the last 30 days).", "from")
        if "from_" in data:
            check_period(data["from_"], data["to"])


class WilsonInterval(ApiSchema):
    low = fields.Float(required=True)
    high = fields.Float(required=True)


class Proportion(Ratio):
    # The Wilson score interval at 95%; null without a denominator.
    interval = fields.Nested(WilsonInterval, required=True, allow_none=True)


class ShareOfVoice(Proportion):
    basis = fields.String(required=True)


class MeanOf(ApiSchema):
    value = fields.Float(required=True, allow_none=True)
    sum = fields.Float(required=True)
    count = fields.Integer(required=True)


class SentimentLabels(ApiSchema):
    positive = fields.Integer(required=True)
    neutral = fields.Integer(required=True)
    negative = fields.Integer(required=True)


class SentimentMean(MeanOf):
    labels = fields.Nested(SentimentLabels, required=True)


class BrandMetrics(ApiSchema):
    visibility = fields.Nested(Proportion, required=True)
    share_of_voice = fields.Nested(ShareOfVoice, required=True)
    average_position = fields.Nested(MeanOf, required=True)
    sentiment = fields.Nested(SentimentMean, required=True)
    citation_rate = fields.Nested(Proportion, required=True)


class BrandChange(ApiSchema):
    """Each value minus the previous period's; null when either is missing."""

    visibility = fields.Float(required=True, allow_none=True)
    share_of_voice = fields.Float(required=True, allow_none=True)
    average_position = fields.Float(required=True, allow_none=True)
    sentiment = fields.Float(required=True, allow_none=True)
    citation_rate = fields.Float(required=True, allow_none=True)


class OverviewBrand(ApiSchema):
    kind = fields.String(required=True)
    competitor_id = fields.String(required=True, allow_none=True)
    name = fields.String(required=True)
    current = fields.Nested(BrandMetrics, required=True)
    previous = fields.Nested(BrandMetrics, required=True)
    change = fields.Nested(BrandChange, required=True)


class DayPeriod(ApiSchema):
    from_ = fields.Date(data_key="from", required=True)
    to = fields.Date(required=True)


class PeriodAnswers(ApiSchema):
    # Completed answers (failed, empty and refused ones count nowhere), and those citing a page.
    answers = fields.Integer(required=True)
    citing_answers = fields.Integer(required=True)
    # The competitor-set versions the answers were analysed under.
    competitor_set_versions = fields.List(fields.Integer(), required=True)


class Overview(ApiSchema):
    product_id = fields.String(required=True)
    time_zone = fields.String(required=True)
    period = fields.Nested(DayPeriod, required=True)
    previous_period = fields.Nested(DayPeriod, required=True)
    answers = fields.Nested(PeriodAnswers, required=True)
    previous_answers = fields.Nested(PeriodAnswers, required=True)
    brands = fields.List(fields.Nested(OverviewBrand), required=True)


# What a report's filters may name, and the values each takes.
FILTER_FIELDS = ("engine", "promptId", "topicId", "competitorSetVersion", "brand")
FILTER_VALUES_MAX = 100


def _filter_value(field: str, value: Any) -> str | None:
    """Why `value` cannot be a value of `field`; None when it can."""
    if field == "competitorSetVersion":
        return None if isinstance(value, int) and not isinstance(value, bool) and value > 0 else "A positive integer."
    if not isinstance(value, str):
        return "A string."
    if field in ("promptId", "topicId") and not is_uuid(value):
        return "Not a valid UUID."
    if field == "brand" and value != BRAND and not is_uuid(value):
        return "brand (the product's own) or a competitor's id."
    if field == "engine" and not 1 <= len(value) <= 100:
        return "Not a valid engine."
    return None


class QueryFilter(ApiSchema):
    field = fields.String(required=True, validate=validate.OneOf(FILTER_FIELDS))
    operator = fields.String(required=True, validate=validate.OneOf(("eq", "in")))
    values = fields.List(fields.Raw(), required=True, validate=validate.Length(min=1, max=FILTER_VALUES_MAX))

    @validates_schema
    def _values(self, data: dict[str, Any], **_: Any) -> None:
        if data["operator"] == "eq" and len(data["values"]) != 1:
            raise ValidationError("eq takes exactly one value; in takes several.", "values")
        for value in data["values"]:
            if (problem := _filter_value(data["field"], value)) is not None:
                raise ValidationError(problem, "values")


class AnalyticsQuery(ApiSchema):
    report = fields.String(required=True, validate=validate.OneOf(("brands", "engines")))
    product_id = UuidString(required=True)
    from_ = fields.Date(data_key="from", required=True)
    to = fields.Date(required=True)
    # Rollups are kept by UTC day: that is the zone every report is read in.
    time_zone = fields.String(load_default="UTC", validate=validate.OneOf(("UTC",), error="Only UTC is served."))
    # Weeks start on Monday; none (left out): the whole period as one row.
    granularity = fields.String(load_default=None, validate=validate.OneOf(("day", "week", "month")))
    filters = fields.List(fields.Nested(QueryFilter), load_default=list, validate=validate.Length(max=20))

    @validates_schema
    def _period(self, data: dict[str, Any], **_: Any) -> None:
        if "from_" in data and "to" in data:
            check_period(data["from_"], data["to"])


class QueryRow(ApiSchema):
    period = fields.Nested(DayPeriod, required=True)
    # Only in the engines report.
    engine = fields.String()
    kind = fields.String(required=True)
    competitor_id = fields.String(required=True, allow_none=True)
    # The name the latest analysis looked for.
    name = fields.String(required=True, allow_none=True)
    answers = fields.Nested(PeriodAnswers, required=True)
    metrics = fields.Nested(BrandMetrics, required=True)


class QueryResult(ApiSchema):
    report = fields.String(required=True)
    time_zone = fields.String(required=True)
    week_starts = fields.String(required=True)
    granularity = fields.String(required=True, allow_none=True)
    items = fields.List(fields.Nested(QueryRow), required=True)
