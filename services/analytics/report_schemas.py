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


def about(text: str) -> dict[str, Any]:
    """A field's OpenAPI description."""
    return {"description": text}


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
    from_ = fields.Date(
        data_key="from",
        metadata=about("The period's first UTC day, included (YYYY-MM-DD); with to, or neither: the last 30 days."),
    )
    to = fields.Date(
        metadata=about("The day after the period's last, excluded (YYYY-MM-DD): the period is [from, to) in UTC.")
    )

    @validates_schema
    def _period(self, data: dict[str, Any], **_: Any) -> None:
        if ("from_" in data) != ("to" in data):
            raise ValidationError("Send from and to together, or neither (the last 30 days).", "from")
        if "from_" in data:
            check_period(data["from_"], data["to"])


class WilsonInterval(ApiSchema):
    low = fields.Float(required=True, metadata=about("The lower bound of the Wilson score interval at 95%."))
    high = fields.Float(required=True, metadata=about("The upper bound of the Wilson score interval at 95%."))


class Proportion(Ratio):
    # The Wilson score interval at 95%; null without a denominator.
    interval = fields.Nested(
        WilsonInterval,
        required=True,
        allow_none=True,
        metadata=about("The Wilson score interval at 95%; null when total is 0."),
    )


class ShareOfVoice(Proportion):
    basis = fields.String(
        required=True,
        metadata=about("What the total counts: mentions of every tracked brand (the product's and its competitors')."),
    )


class MeanOf(ApiSchema):
    value = fields.Float(required=True, allow_none=True, metadata=about("sum / count; null when count is 0."))
    sum = fields.Float(required=True, metadata=about("The sum of the values averaged."))
    count = fields.Integer(required=True, metadata=about("How many values are averaged."))


class SentimentLabels(ApiSchema):
    positive = fields.Integer(required=True, metadata=about("Answers mentioning the brand in a positive tone."))
    neutral = fields.Integer(required=True, metadata=about("Answers mentioning the brand in a neutral tone."))
    negative = fields.Integer(required=True, metadata=about("Answers mentioning the brand in a negative tone."))


class SentimentMean(MeanOf):
    labels = fields.Nested(
        SentimentLabels, required=True, metadata=about("How many answers mentioning the brand took each tone.")
    )


class BrandMetrics(ApiSchema):
    visibility = fields.Nested(
        Proportion, required=True, metadata=about("Answers mentioning the brand, of the completed answers.")
    )
    share_of_voice = fields.Nested(
        ShareOfVoice, required=True, metadata=about("Mentions of the brand, of the mentions of every tracked brand.")
    )
    average_position = fields.Nested(
        MeanOf,
        required=True,
        metadata=about(
            "The brand's position (1: named first among the tracked brands), over the answers mentioning it."
        ),
    )
    sentiment = fields.Nested(
        SentimentMean,
        required=True,
        metadata=about(
            "The mean sentiment score (-1 to 1) over the answers mentioning the brand, with each tone's count."
        ),
    )
    citation_rate = fields.Nested(
        Proportion,
        required=True,
        metadata=about("Answers citing a page of the brand's domains, of the answers citing any page."),
    )


class BrandChange(ApiSchema):
    """Each value minus the previous period's; null when either is missing."""

    visibility = fields.Float(
        required=True,
        allow_none=True,
        metadata=about("The visibility minus the previous period's; null when either is missing."),
    )
    share_of_voice = fields.Float(
        required=True,
        allow_none=True,
        metadata=about("The share of voice minus the previous period's; null when either is missing."),
    )
    average_position = fields.Float(
        required=True,
        allow_none=True,
        metadata=about("The average position minus the previous period's; null when either is missing."),
    )
    sentiment = fields.Float(
        required=True,
        allow_none=True,
        metadata=about("The mean sentiment minus the previous period's; null when either is missing."),
    )
    citation_rate = fields.Float(
        required=True,
        allow_none=True,
        metadata=about("The citation rate minus the previous period's; null when either is missing."),
    )


class OverviewBrand(ApiSchema):
    kind = fields.String(required=True, metadata=about("`brand` (the product's own) or `competitor`."))
    competitor_id = fields.String(
        required=True, allow_none=True, metadata=about("The competitor's id; null for the product's brand.")
    )
    name = fields.String(required=True, metadata=about("The brand's or competitor's name."))
    current = fields.Nested(BrandMetrics, required=True, metadata=about("The numbers of the period asked."))
    previous = fields.Nested(
        BrandMetrics, required=True, metadata=about("The numbers of the period of the same length just before.")
    )
    change = fields.Nested(BrandChange, required=True, metadata=about("Each number minus the previous period's."))


class DayPeriod(ApiSchema):
    from_ = fields.Date(data_key="from", required=True, metadata=about("The first UTC day, included."))
    to = fields.Date(required=True, metadata=about("The day after the last, excluded."))


class PeriodAnswers(ApiSchema):
    # Completed answers (failed, empty and refused ones count nowhere), and those citing a page.
    answers = fields.Integer(
        required=True, metadata=about("Completed answers (failed, empty and refused ones count nowhere).")
    )
    citing_answers = fields.Integer(required=True, metadata=about("Completed answers citing at least one page."))
    drawing_answers = fields.Integer(
        required=True, metadata=about("Completed answers drawing on at least one page, cited or retrieved.")
    )
    citations = fields.Integer(required=True, metadata=about("Citations in the completed answers."))
    # The competitor-set versions the answers were analysed under.
    competitor_set_versions = fields.List(
        fields.Integer(),
        required=True,
        metadata=about("The competitor-set versions these answers were analysed under."),
    )


class Overview(ApiSchema):
    product_id = fields.String(required=True, metadata=about("The product's id."))
    time_zone = fields.String(required=True, metadata=about("The zone of the days: `UTC`."))
    period = fields.Nested(DayPeriod, required=True, metadata=about("The period asked: [from, to)."))
    previous_period = fields.Nested(
        DayPeriod, required=True, metadata=about("The period of the same length just before.")
    )
    answers = fields.Nested(PeriodAnswers, required=True, metadata=about("The period's answers."))
    previous_answers = fields.Nested(PeriodAnswers, required=True, metadata=about("The previous period's answers."))
    brands = fields.List(
        fields.Nested(OverviewBrand), required=True, metadata=about("The product's brand, then each competitor.")
    )


REPORTS = ("brands", "engines", "prompts", "topics", "domains", "urls")
# Rows of the domains report per period, most cited first.
DOMAINS_DEFAULT = 50
DOMAINS_MAX = 500
# What a report's filters may name, and the values each takes.
FILTER_FIELDS = ("engine", "promptId", "topicId", "competitorSetVersion", "brand", "domain")
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
    if field == "domain" and not 1 <= len(value) <= 253:
        return "Not a valid domain."
    return None


class QueryFilter(ApiSchema):
    field = fields.String(
        required=True,
        validate=validate.OneOf(FILTER_FIELDS),
        metadata=about(
            "What is filtered: `engine`, `promptId`, `topicId`, `competitorSetVersion`, `brand` (`brand` or a"
            " competitor's id; it picks rows, share of voice stays over every brand) or `domain` (it picks the"
            " domains report's rows; shares stay over every page)."
        ),
    )
    operator = fields.String(
        required=True,
        validate=validate.OneOf(("eq", "in")),
        metadata=about("`eq` (one value) or `in` (any of the values)."),
    )
    values = fields.List(
        fields.Raw(),
        required=True,
        validate=validate.Length(min=1, max=FILTER_VALUES_MAX),
        metadata=about("The values kept (at most 100)."),
    )

    @validates_schema
    def _values(self, data: dict[str, Any], **_: Any) -> None:
        if data["operator"] == "eq" and len(data["values"]) != 1:
            raise ValidationError("eq takes exactly one value; in takes several.", "values")
        for value in data["values"]:
            if (problem := _filter_value(data["field"], value)) is not None:
                raise ValidationError(problem, "values")


# The metrics `having` and `orderBy` may name, by report: API name -> row key.
BRAND_METRICS = {"visibility": "visibility", "shareOfVoice": "share_of_voice", "averagePosition": "average_position",
                 "sentiment": "sentiment", "citationRate": "citation_rate"}  # fmt: skip
DOMAIN_METRICS = {
    "citationRate": "citation_rate",
    "retrievedShare": "retrieved_share",
    "citationShare": "citation_share",
}
METRIC_NAMES = ("visibility", "shareOfVoice", "averagePosition", "sentiment", "citationRate", "retrievedShare",
                "citationShare")  # fmt: skip


def metrics_of(report: str) -> dict[str, str]:
    return DOMAIN_METRICS if report in ("domains", "urls") else BRAND_METRICS


class Having(ApiSchema):
    metric = fields.String(
        required=True,
        validate=validate.OneOf(METRIC_NAMES),
        metadata=about(
            "A metric of the report's rows: `visibility`, `shareOfVoice`, `averagePosition`, `sentiment`,"
            " `citationRate` (brand reports), or `citationRate`, `retrievedShare`, `citationShare` (domains, urls)."
        ),
    )
    operator = fields.String(
        required=True,
        validate=validate.OneOf(("gt", "gte", "lt", "lte")),
        metadata=about("`gt`, `gte`, `lt` or `lte`: how the metric's value compares with `value`."),
    )
    value = fields.Float(required=True, metadata=about("The value compared with; a null metric never passes."))


class OrderBy(ApiSchema):
    metric = fields.String(
        required=True,
        validate=validate.OneOf(METRIC_NAMES),
        metadata=about(
            "The metric each period's rows are ordered by: `visibility`, `shareOfVoice`, `averagePosition`,"
            " `sentiment`, `citationRate`, `retrievedShare` or `citationShare` (one of the report's)."
        ),
    )
    direction = fields.String(
        load_default="desc",
        validate=validate.OneOf(("asc", "desc")),
        metadata=about("`desc` (the default) or `asc`; null values last either way."),
    )


class AnalyticsQuery(ApiSchema):
    report = fields.String(
        required=True,
        validate=validate.OneOf(REPORTS),
        metadata=about(
            "What each row is: `brands` (a brand in a period), `engines`, `prompts` or `topics` (a brand on an"
            " engine, for a prompt or in a topic, in a period; answers to no tracked prompt under null) or"
            " `domains` (a cited or retrieved domain in a period) or `urls` (a page of the domains a `domain`"
            " filter names, in a period)."
        ),
    )
    product_id = UuidString(required=True, metadata=about("The product's id."))
    from_ = fields.Date(
        data_key="from", required=True, metadata=about("The period's first UTC day, included (YYYY-MM-DD).")
    )
    to = fields.Date(
        required=True, metadata=about("The day after the period's last, excluded; a period is at most 366 days.")
    )
    # Rollups are kept by UTC day: that is the zone every report is read in.
    time_zone = fields.String(
        load_default="UTC",
        validate=validate.OneOf(("UTC",), error="Only UTC is served."),
        metadata=about("The zone of the days: `UTC` (the default, and the only one served)."),
    )
    # Weeks start on Monday; none (left out): the whole period as one row.
    granularity = fields.String(
        load_default=None,
        validate=validate.OneOf(("day", "week", "month")),
        metadata=about("Rows by `day`, `week` (from Monday) or `month`; left out, the whole period."),
    )
    filters = fields.List(
        fields.Nested(QueryFilter),
        load_default=list,
        validate=validate.Length(max=20),
        metadata=about("Filters applied before anything is summed (at most 20)."),
    )

    having = fields.List(
        fields.Nested(Having),
        load_default=list,
        validate=validate.Length(max=10),
        metadata=about("Conditions on the rows' metrics, applied after summing: a row is kept when it meets all."),
    )
    order_by = fields.Nested(
        OrderBy,
        load_default=None,
        metadata=about("Orders each period's rows by a metric; left out, by split, then brand or most cited."),
    )
    compare_to_previous = fields.Boolean(
        load_default=False,
        metadata=about("Give each row the same row of the period of the same length just before (no granularity)."),
    )
    limit = fields.Integer(
        load_default=DOMAINS_DEFAULT,
        validate=validate.Range(min=1, max=DOMAINS_MAX),
        metadata=about(f"The domains and urls reports' rows per period, most cited first (at most {DOMAINS_MAX})."),
    )

    @validates_schema
    def _period(self, data: dict[str, Any], **_: Any) -> None:
        if "from_" in data and "to" in data:
            check_period(data["from_"], data["to"])

    @validates_schema
    def _metrics(self, data: dict[str, Any], **_: Any) -> None:
        if "report" not in data:
            return
        known = metrics_of(data["report"])
        for index, item in enumerate(data.get("having", [])):
            if item["metric"] not in known:
                raise ValidationError(f"Not a metric of the {data['report']} report.", f"having.{index}.metric")
        if data.get("order_by") is not None and data["order_by"]["metric"] not in known:
            raise ValidationError(f"Not a metric of the {data['report']} report.", "orderBy.metric")

    @validates_schema
    def _comparison(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("compare_to_previous") and data.get("granularity") is not None:
            raise ValidationError("Compare whole periods: leave granularity out to compare.", "compareToPrevious")

    @validates_schema
    def _picking_filters(self, data: dict[str, Any], **_: Any) -> None:
        named = {item["field"] for item in data.get("filters", [])}
        if data.get("report") == "domains" and "brand" in named:
            raise ValidationError("brand filters the brand reports, not domains.", "filters")
        if data.get("report", "domains") not in ("domains", "urls") and "domain" in named:
            raise ValidationError("domain filters the domains and urls reports only.", "filters")
        if data.get("report") == "urls" and "domain" not in named:
            raise ValidationError("The urls report drills down into domains: filter by domain.", "filters")


class DomainMetrics(ApiSchema):
    citation_rate = fields.Nested(
        Proportion, required=True, metadata=about("Answers citing the domain, of the answers citing any page.")
    )
    retrieved_share = fields.Nested(
        Proportion,
        required=True,
        metadata=about("Answers drawing on the domain (a page cited or retrieved), of those drawing on any page."),
    )
    citation_share = fields.Nested(
        Proportion, required=True, metadata=about("Citations of the domain's pages, of all citations.")
    )


class PreviousRow(ApiSchema):
    period = fields.Nested(DayPeriod, required=True, metadata=about("The previous period."))
    answers = fields.Nested(PeriodAnswers, required=True, metadata=about("The previous period's answers."))
    metrics = fields.Nested(BrandMetrics, metadata=about("The brand's numbers then (brand reports)."))
    domain_metrics = fields.Nested(
        DomainMetrics, metadata=about("The domain's or page's numbers then (domains and urls reports).")
    )


class QueryRow(ApiSchema):
    period = fields.Nested(DayPeriod, required=True, metadata=about("The row's days, clipped to the period asked."))
    # Only in the engines report.
    engine = fields.String(metadata=about("The engine (the engines report only)."))
    prompt_id = fields.String(
        allow_none=True, metadata=about("The tracked prompt; null for other prompts (the prompts report only).")
    )
    topic_id = fields.String(allow_none=True, metadata=about("The topic; null for none (the topics report only)."))
    kind = fields.String(metadata=about("`brand` (the product's own) or `competitor` (brand reports)."))
    competitor_id = fields.String(
        allow_none=True, metadata=about("The competitor's id; null for the product's brand (brand reports).")
    )
    name = fields.String(allow_none=True, metadata=about("The name the latest analysis looked for (brand reports)."))
    domain = fields.String(metadata=about("The registrable domain (the domains and urls reports)."))
    url = fields.String(metadata=about("The page, its URL normalised (the urls report)."))
    title = fields.String(allow_none=True, metadata=about("The page's title as an engine gave it (the urls report)."))
    answers = fields.Nested(PeriodAnswers, required=True, metadata=about("The answers of the row's days (and engine)."))
    metrics = fields.Nested(BrandMetrics, metadata=about("The brand's numbers over those answers (brand reports)."))
    domain_metrics = fields.Nested(
        DomainMetrics, metadata=about("The domain's or page's numbers over those answers (domains and urls reports).")
    )
    previous = fields.Nested(
        PreviousRow,
        allow_none=True,
        metadata=about("With compareToPrevious: this row in the period just before; null when it has none."),
    )


class QueryResult(ApiSchema):
    report = fields.String(
        required=True,
        metadata=about("The report asked: `brands`, `engines`, `prompts`, `topics`, `domains` or `urls`."),
    )
    time_zone = fields.String(required=True, metadata=about("The zone of the days: `UTC`."))
    week_starts = fields.String(required=True, metadata=about("The first day of a week: `monday`."))
    granularity = fields.String(
        required=True, allow_none=True, metadata=about("`day`, `week`, `month`, or null (the whole period).")
    )
    items = fields.List(
        fields.Nested(QueryRow),
        required=True,
        metadata=about("The rows, by period, engine, then brand (the product's first)."),
    )
