"""Requests of the analytics reports: the overview's period and the query's body. Periods are
dates in a named time zone (UTC by default), closed-open: `[from, to)`; the answers' shapes are
in report_shapes.py."""

from __future__ import annotations

import base64
import binascii
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from marshmallow import ValidationError, fields, validate, validates_schema

from libs.common.encoding import dumps, loads
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import UuidString, is_uuid
from services.analytics.brand_sets import BRAND
from services.analytics.report_shapes import about
from services.analytics.report_sources import UTC_ZONE, ZONES

# The longest period a report reads.
PERIOD_MAX_DAYS = 366
# The period of an overview asked without one: the last 30 days, today included.
PERIOD_DEFAULT_DAYS = 30


def default_period(zone: str, today: date | None = None) -> tuple[date, date]:
    """The last PERIOD_DEFAULT_DAYS days in `zone`, today included."""
    end = (today or datetime.now(ZoneInfo(zone)).date()) + timedelta(days=1)
    return end - timedelta(days=PERIOD_DEFAULT_DAYS), end


def check_period(start: date, end: date, field: str = "to") -> None:
    """A period is at least a day and at most PERIOD_MAX_DAYS; a 422 naming `field` otherwise."""
    if end <= start:
        raise ValidationError("Must be after from (the period is [from, to)).", field)
    if (end - start).days > PERIOD_MAX_DAYS:
        raise ValidationError(f"A period is at most {PERIOD_MAX_DAYS} days.", field)


def known_zone(value: str) -> None:
    # A check rather than an enumeration: the IANA names (about 600) would make every generated
    # client an enum whose members collide once made identifiers (GMT0, GMT-0, GMT+0).
    if value not in ZONES:
        raise ValidationError("Not a time zone: an IANA name such as Europe/Paris, or UTC.")


def time_zone(text: str) -> fields.String:
    """A named time zone field: the zone a period's days are in."""
    return fields.String(load_default=UTC_ZONE, validate=known_zone, metadata=about(text))


class OverviewQuery(ApiSchema):
    from_ = fields.Date(
        data_key="from",
        metadata=about("The period's first day, included (YYYY-MM-DD); with to, or neither: the last 30 days."),
    )
    to = fields.Date(
        metadata=about("The day after the period's last, excluded (YYYY-MM-DD): the period is [from, to).")
    )
    time_zone = time_zone("The IANA time zone the days start and end in; UTC by default.")

    @validates_schema
    def _period(self, data: dict[str, Any], **_: Any) -> None:
        if ("from_" in data) != ("to" in data):
            raise ValidationError("Send from and to together, or neither (the last 30 days).", "from")
        if "from_" in data:
            check_period(data["from_"], data["to"])


BRAND_REPORTS = ("brands", "engines", "prompts", "topics")
DOMAIN_REPORTS = ("domains", "urls")
# AI agents' visits to the organization's Apps, and referrals (services/traffic owns the rows).
TRAFFIC_REPORT = "ai_traffic"
REPORTS = (*BRAND_REPORTS, *DOMAIN_REPORTS, TRAFFIC_REPORT)
# A page of rows.
LIMIT_DEFAULT = 100
LIMIT_MAX = 1000
# What a report's filters may name, and the values each takes.
FILTER_FIELDS = ("engine", "promptId", "topicId", "competitorSetVersion", "brand", "domain")
# The operators, and the fields `prefix` applies to (text; ids are whole or nothing).
OPERATORS = ("eq", "in", "not_in", "prefix")
PREFIXED = ("engine", "domain")
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
        validate=validate.OneOf(OPERATORS),
        metadata=about(
            "`eq` (one value), `in` (any of the values), `not_in` (none of them) or `prefix` (starting with any of"
            " them; `engine` and `domain` only)."
        ),
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
        if data["operator"] == "prefix" and data["field"] not in PREFIXED:
            raise ValidationError(f"prefix applies to {' and '.join(PREFIXED)} only.", "operator")
        for value in data["values"]:
            if (problem := _filter_value(data["field"], value)) is not None:
                raise ValidationError(problem, "values")


# The metrics `having` and `orderBy` may name, by report: API name -> row key.
BRAND_METRICS = {
    "visibility": "visibility",
    "shareOfVoice": "share_of_voice",
    "averagePosition": "average_position",
    "sentiment": "sentiment",
    "citationRate": "citation_rate",
}
DOMAIN_METRICS = {
    "citationRate": "citation_rate",
    "retrievedShare": "retrieved_share",
    "citationShare": "citation_share",
}
TRAFFIC_METRICS = {
    "visits": "visits",
    "verifiedVisits": "verified_visits",
    "successRate": "success_rate",
    "failureRate": "failure_rate",
    "referrals": "referrals",
    "crawlToRefer": "crawl_to_refer",
}
METRIC_NAMES = tuple(dict.fromkeys([*BRAND_METRICS, *DOMAIN_METRICS, *TRAFFIC_METRICS]))


def metrics_of(report: str) -> dict[str, str]:
    if report == TRAFFIC_REPORT:
        return TRAFFIC_METRICS
    return DOMAIN_METRICS if report in DOMAIN_REPORTS else BRAND_METRICS


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


class RowCursor(fields.String):
    """A `nextCursor`: the place (base64url JSON) of the last row of a page in the report's order,
    loaded as that place; the next page starts after it."""

    default_error_messages = {"invalid_cursor": "Not a cursor of this report: send nextCursor as a page gave it."}

    def _deserialize(  # type: ignore[override]
        self, value: Any, attr: str | None, data: Any, **kwargs: Any
    ) -> list[Any]:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        try:
            place = loads(base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True))
        except (ValueError, binascii.Error):
            place = None
        if not isinstance(place, list) or not all(isinstance(part, str | int | float | bool) for part in place):
            raise self.make_error("invalid_cursor")
        return place


def encode_place(place: list[Any]) -> str:
    return base64.urlsafe_b64encode(dumps(place)).rstrip(b"=").decode()


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
    product_id = UuidString(metadata=about("The product's id (every report but ai_traffic)."))
    app_id = UuidString(metadata=about("The ai_traffic report's App; left out, every App of the organization."))
    from_ = fields.Date(
        data_key="from", required=True, metadata=about("The period's first day, included (YYYY-MM-DD).")
    )
    to = fields.Date(
        required=True, metadata=about("The day after the period's last, excluded; a period is at most 366 days.")
    )
    # UTC days are read from the daily rollups; other zones' days from the hourly ones, and the
    # hours a midnight of the zone splits from the raw rows (report_sources.py).
    time_zone = time_zone("The IANA time zone the days (and weeks, months) start in; UTC by default.")
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
    metrics = fields.List(
        fields.String(validate=validate.OneOf(METRIC_NAMES)),
        load_default=None,
        validate=validate.Length(min=1),
        metadata=about("The metrics each row carries (of the report's); left out, all of them."),
    )
    limit = fields.Integer(
        load_default=LIMIT_DEFAULT,
        validate=validate.Range(min=1, max=LIMIT_MAX),
        metadata=about(f"The rows of a page (at most {LIMIT_MAX}); nextCursor asks for the next."),
    )
    cursor = RowCursor(metadata=about("The nextCursor of the page before, the rest of the query unchanged."))

    @validates_schema
    def _period(self, data: dict[str, Any], **_: Any) -> None:
        if "from_" in data and "to" in data:
            check_period(data["from_"], data["to"])

    @validates_schema
    def _metrics(self, data: dict[str, Any], **_: Any) -> None:
        if "report" not in data:
            return
        known = metrics_of(data["report"])
        for index, name in enumerate(data.get("metrics") or []):
            if name not in known:
                raise ValidationError(f"Not a metric of the {data['report']} report.", f"metrics.{index}")
        for index, item in enumerate(data.get("having", [])):
            if item["metric"] not in known:
                raise ValidationError(f"Not a metric of the {data['report']} report.", f"having.{index}.metric")
        if data.get("order_by") is not None and data["order_by"]["metric"] not in known:
            raise ValidationError(f"Not a metric of the {data['report']} report.", "orderBy.metric")

    @validates_schema
    def _subject(self, data: dict[str, Any], **_: Any) -> None:
        if "report" not in data:
            return
        traffic = data["report"] == TRAFFIC_REPORT
        if not traffic and "product_id" not in data:
            raise ValidationError("Missing data for required field.", "productId")
        if traffic and "product_id" in data:
            raise ValidationError("ai_traffic counts the organization's Apps: send appId, or neither.", "productId")
        if not traffic and "app_id" in data:
            raise ValidationError("Only the ai_traffic report reads an App.", "appId")
        if traffic and data.get("filters"):
            raise ValidationError("The ai_traffic report takes no filters: send appId for one App.", "filters")

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
