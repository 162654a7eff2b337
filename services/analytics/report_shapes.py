"""Response shapes of the analytics reports. Every ratio carries what it was computed from
(services/analytics/metrics.py): a proportion `{value, count, total, interval}`, a mean
`{value, sum, count}`. Periods are dates in the report's time zone, closed-open: `[from, to)`."""

from __future__ import annotations

import copy
from typing import Any

from marshmallow import Schema, fields

from libs.common.schemas import Ratio
from libs.contract.api_schema import ApiSchema


def about(text: str) -> dict[str, Any]:
    """A field's OpenAPI description."""
    return {"description": text}


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


# The numbers an overview compares with the previous period, and what each is called.
CHANGED = {
    "visibility": "visibility",
    "share_of_voice": "share of voice",
    "average_position": "average position",
    "sentiment": "mean sentiment",
    "citation_rate": "citation rate",
}
# Each value minus the previous period's; null when either is missing.
BrandChange = ApiSchema.from_dict(
    {
        name: fields.Float(
            required=True,
            allow_none=True,
            metadata=about(f"The {label} minus the previous period's; null when either is missing."),
        )
        for name, label in CHANGED.items()
    },
    name="BrandChange",
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
    from_ = fields.Date(data_key="from", required=True, metadata=about("The first day, included."))
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
    time_zone = fields.String(required=True, metadata=about("The IANA time zone of the days, `UTC` by default."))
    period = fields.Nested(DayPeriod, required=True, metadata=about("The period asked: [from, to)."))
    previous_period = fields.Nested(
        DayPeriod, required=True, metadata=about("The period of the same length just before.")
    )
    answers = fields.Nested(PeriodAnswers, required=True, metadata=about("The period's answers."))
    previous_answers = fields.Nested(PeriodAnswers, required=True, metadata=about("The previous period's answers."))
    brands = fields.List(
        fields.Nested(OverviewBrand), required=True, metadata=about("The product's brand, then each competitor.")
    )


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


def chosen(schema: type[ApiSchema], name: str) -> type[Schema]:
    """`schema` with each field optional: a query's row carries the metrics it was asked for."""
    optional = {}
    for key, field in schema._declared_fields.items():
        optional[key] = copy.copy(field)
        optional[key].required = False
    return ApiSchema.from_dict(optional, name=name)


ChosenBrandMetrics = chosen(BrandMetrics, "ChosenBrandMetrics")
ChosenDomainMetrics = chosen(DomainMetrics, "ChosenDomainMetrics")


class TrafficNumbers(ApiSchema):
    visits = fields.Integer(required=True, metadata=about("AI agents' requests (spoofed claims left out)."))
    verified_visits = fields.Integer(required=True, metadata=about("Of those, by verified agents."))
    success_rate = fields.Nested(Proportion, required=True, metadata=about("Visits answered 2xx or 3xx."))
    failure_rate = fields.Nested(Proportion, required=True, metadata=about("Visits answered 4xx or 5xx."))
    bytes = fields.Integer(required=True, metadata=about("Bytes answered to the agents."))
    referrals = fields.Integer(required=True, metadata=about("People answer engines sent to the Apps."))
    crawl_to_refer = fields.Nested(
        Ratio, required=True, metadata=about("Crawls by the referring engines' operators (count) per referral (total).")
    )


ChosenTrafficNumbers = chosen(TrafficNumbers, "ChosenTrafficNumbers")


class PreviousRow(ApiSchema):
    period = fields.Nested(DayPeriod, required=True, metadata=about("The previous period."))
    answers = fields.Nested(PeriodAnswers, metadata=about("The previous period's answers (brand and domain reports)."))
    traffic = fields.Nested(ChosenTrafficNumbers, metadata=about("AI traffic then (the ai_traffic report)."))
    metrics = fields.Nested(ChosenBrandMetrics, metadata=about("The brand's numbers then (brand reports)."))
    domain_metrics = fields.Nested(
        ChosenDomainMetrics, metadata=about("The domain's or page's numbers then (domains and urls reports).")
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
    answers = fields.Nested(
        PeriodAnswers, metadata=about("The answers of the row's days (and engine; brand and domain reports).")
    )
    app_id = fields.String(allow_none=True, metadata=about("The App; null for every App (the ai_traffic report)."))
    traffic = fields.Nested(
        ChosenTrafficNumbers, metadata=about("AI traffic in the row's days (the ai_traffic report).")
    )
    metrics = fields.Nested(
        ChosenBrandMetrics, metadata=about("The brand's numbers over those answers (brand reports).")
    )
    domain_metrics = fields.Nested(
        ChosenDomainMetrics,
        metadata=about("The domain's or page's numbers over those answers (domains and urls reports)."),
    )
    previous = fields.Nested(
        PreviousRow,
        allow_none=True,
        metadata=about("With compareToPrevious: this row in the period just before; null when it has none."),
    )


class QueryResult(ApiSchema):
    report = fields.String(
        required=True,
        metadata=about(
            "The report asked: `brands`, `engines`, `prompts`, `topics`, `domains`, `urls` or `ai_traffic`."
        ),
    )
    time_zone = fields.String(required=True, metadata=about("The IANA time zone of the days, `UTC` by default."))
    week_starts = fields.String(required=True, metadata=about("The first day of a week: `monday`."))
    granularity = fields.String(
        required=True, allow_none=True, metadata=about("`day`, `week`, `month`, or null (the whole period).")
    )
    items = fields.List(
        fields.Nested(QueryRow),
        required=True,
        metadata=about(
            "A page of rows, by period, then orderBy's metric, engine, prompt or topic, then brand (the product's"
            " first) or most cited domain."
        ),
    )
    next_cursor = fields.String(
        required=True, allow_none=True, metadata=about("The cursor of the next page; null on the last.")
    )
