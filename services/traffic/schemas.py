"""Request and response shapes of AI traffic. The answers are made by these schemas' shapes (a log
entry and an outcome in shapes.py, the summary in summary.py), but the agent catalog's, which is
its snapshot as read (catalog.py); the suite checks every answer against them."""

from __future__ import annotations

import ipaddress
from datetime import datetime
from typing import Any

from marshmallow import ValidationError, fields, validate, validates

from libs.common.cursors import PageCursor
from libs.common.schemas import Ratio
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import (
    FullMatch,
    JsonInteger,
    QueryBoolean,
    StrictNumber,
    StrictString,
    UtcDateTime,
    UuidString,
    length,
)
from services.traffic.curated import CATEGORIES
from services.traffic.store import STATUS_CLASSES

MAX_EVENTS = 1000
PATH_MAX = 4096
TEXT_MAX = 2048
SIGNATURE_MAX = 8192
PAGE_DEFAULT = 50
PAGE_MAX = 200
GRANULARITIES = ("hour", "day", "week")
GROUPS = ("bot", "operator", "category", "path", "statusClass", "verified")
METHOD = FullMatch(r"[A-Z]{1,16}", "An HTTP method in capitals, such as GET.")
EVENT_ID = FullMatch(r"[\x21-\x7e]{1,128}", "1 to 128 printable ASCII characters without spaces.")
PATH = FullMatch(r"/\S*", "A path starting with /.")
GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
WHEN = " (ISO 8601, with a zone)"


def about(text: str, example: Any = None) -> dict[str, Any]:
    """A field's OpenAPI description, and its example where its type alone makes a poor one."""
    return {"description": text} | ({} if example is None else {"example": example})


class TrafficEvent(ApiSchema):
    """One request an App's edge answered."""

    id = StrictString(
        required=True,
        validate=EVENT_ID,
        metadata=about(
            "The event's id, unique per organization: an event sent again is counted once.", "cf-7f3a9c2e01"
        ),
    )
    occurred_at = UtcDateTime(required=True, metadata=about("When the request was answered" + WHEN + "."))
    host = StrictString(
        required=True,
        validate=length(1, 253),
        metadata=about(
            "The host the request was sent to: a domain of one of the organization's Apps.", "docs.example.com"
        ),
    )
    path = StrictString(
        required=True,
        validate=[length(1, PATH_MAX), PATH],
        metadata=about("The path requested, with its query.", "/llms.txt"),
    )
    method = StrictString(required=True, validate=METHOD, metadata=about("The request's method.", "GET"))
    status = JsonInteger(
        required=True, validate=validate.Range(min=100, max=599), metadata=about("The status of the answer.", 200)
    )
    user_agent = StrictString(
        required=True, validate=length(0, TEXT_MAX), metadata=about("The request's `User-Agent`.", GPTBOT)
    )
    ip = StrictString(
        required=True,
        validate=length(2, 45),
        metadata=about(
            "The client's address (IPv4 or IPv6): used to verify the agent, then kept only as its /24 or /48.",
            "203.0.113.7",
        ),
    )
    referer = StrictString(
        allow_none=True,
        validate=length(0, TEXT_MAX),
        metadata=about("The request's `Referer`, if any.", "https://chatgpt.com/"),
    )
    bytes = JsonInteger(
        allow_none=True, validate=validate.Range(min=0), metadata=about("The size of the answer's body in bytes.", 5120)
    )
    duration_ms = StrictNumber(
        allow_none=True,
        validate=validate.Range(min=0),
        metadata=about("How long the answer took, in milliseconds.", 12.5),
    )
    signature = StrictString(
        allow_none=True,
        validate=length(1, SIGNATURE_MAX),
        metadata=about("The request's `Signature` (Web Bot Auth, RFC 9421), if any.", "sig1=:b64signature==:"),
    )
    signature_input = StrictString(
        allow_none=True,
        validate=length(1, SIGNATURE_MAX),
        metadata=about(
            "The request's `Signature-Input`, if any.",
            'sig1=("@authority" "signature-agent");created=1764330000;keyid="kid";tag="web-bot-auth"',
        ),
    )
    signature_agent = StrictString(
        allow_none=True,
        validate=length(1, TEXT_MAX),
        metadata=about("The request's `Signature-Agent`, if any.", '"https://chatgpt.com"'),
    )

    @validates("ip")
    def _ip(self, value: str, **_: Any) -> None:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ValidationError("Not an IPv4 or IPv6 address.") from None


class RejectedEvent(ApiSchema):
    index = fields.Integer(required=True, metadata=about("The event's position in the batch, from 0."))
    message = fields.String(required=True)


class TrafficIngestResult(ApiSchema):
    accepted = fields.Integer(required=True, metadata=about("Events stored now."))
    duplicates = fields.Integer(required=True, metadata=about("Events whose id was already stored."))
    dropped = fields.Integer(
        required=True, metadata=about("Human requests that no answer engine referred: counted, not kept.")
    )
    rejected = fields.List(
        fields.Nested(RejectedEvent), required=True, metadata=about("The events refused, each alone, with why.")
    )


class TrafficLogQuery(ApiSchema):
    app_id = UuidString()
    host = fields.String(validate=length(1, 253), metadata=about("Only requests to this host."))
    bot_id = fields.String(
        validate=length(1, 100), metadata=about("Only this agent (an id of `GET /api/v1/ai-traffic/bots`).", "gptbot")
    )
    category = fields.String(validate=validate.OneOf(CATEGORIES), metadata=about("Only agents of this category."))
    verified = QueryBoolean(metadata=about("Only verified agents (`true`), or only unverified ones (`false`)."))
    status_class = fields.String(validate=validate.OneOf(STATUS_CLASSES), metadata=about("Only answers of this class."))
    path_prefix = fields.String(
        validate=[length(1, PATH_MAX), PATH], metadata=about("Only paths starting with this.", "/docs/")
    )
    from_ = UtcDateTime(data_key="from", metadata=about("Only requests at or after this time" + WHEN + "."))
    to = UtcDateTime(metadata=about("Only requests before this time" + WHEN + "."))
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(datetime.fromisoformat)


class TrafficLogEntry(ApiSchema):
    id = fields.String(
        required=True, metadata=about("The event's id, as sent (`edge-…` when the App edge recorded it).")
    )
    occurred_at = fields.DateTime(required=True, metadata=about("When the request was answered" + WHEN + "."))
    received_at = fields.DateTime(required=True, metadata=about("When it was recorded" + WHEN + "."))
    source = fields.String(required=True, metadata=about("`ingest` (the API) or `edge` (the App edge)."))
    app_id = fields.String(required=True)
    domain_id = fields.String(required=True, metadata=about("The id of the App's domain the host is."))
    host = fields.String(required=True, metadata=about("The host the request was sent to."))
    path = fields.String(required=True)
    method = fields.String(required=True, metadata=about("The request's method."))
    status = fields.Integer(required=True, metadata=about("The status of the answer."))
    user_agent = fields.String(required=True, metadata=about("The request's `User-Agent`."))
    client_network = fields.String(required=True, metadata=about("The client's /24 (IPv4) or /48 (IPv6)."))
    referer = fields.String(required=True, allow_none=True, metadata=about("The request's `Referer`; null if none."))
    bytes = fields.Integer(
        required=True, allow_none=True, metadata=about("The answer's size in bytes; null if unknown.")
    )
    duration_ms = fields.Float(
        required=True, allow_none=True, metadata=about("How long the answer took, in milliseconds; null if unknown.")
    )
    kind = fields.String(required=True, metadata=about("`agent`, or `referral` (a human from an answer engine)."))
    bot_id = fields.String(
        required=True,
        allow_none=True,
        metadata=about("The agent it is counted as; null for a referral or a spoofed claim."),
    )
    claimed_bot_id = fields.String(
        required=True, allow_none=True, metadata=about("The agent its user agent claims; null for a referral.")
    )
    operator = fields.String(
        required=True,
        allow_none=True,
        metadata=about("Who runs the agent (or the answer engine that referred); null for a spoofed claim."),
    )
    category = fields.String(
        required=True, allow_none=True, metadata=about("The agent's category; null for a referral or a spoofed claim.")
    )
    verified = fields.Boolean(required=True, metadata=about("Whether the agent was proven to be who it claims."))
    matched_by = fields.String(
        required=True,
        allow_none=True,
        metadata=about(
            "How the agent was told: `ua` (its user agent only), `ip`, `rdns` or `signature`; null for a referral."
        ),
    )
    spoofed = fields.Boolean(
        required=True,
        metadata=about("Whether it claims an agent from outside the operator's complete published addresses."),
    )
    referral_platform = fields.String(
        required=True,
        allow_none=True,
        metadata=about("The answer engine that referred the human (`chatgpt`, `perplexity`, …); null for an agent."),
    )


class TrafficLogPage(ApiSchema):
    items = fields.List(fields.Nested(TrafficLogEntry), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class TrafficSummaryQuery(ApiSchema):
    app_id = UuidString()
    from_ = UtcDateTime(data_key="from", metadata=about("Inclusive, a whole UTC hour; default 7 days before `to`."))
    to = UtcDateTime(metadata=about("Exclusive, a whole UTC hour; default the next whole hour."))
    granularity = fields.String(
        load_default="day",
        validate=validate.OneOf(GRANULARITIES),
        metadata=about("The series' periods (days start at 00:00 UTC, weeks on Monday)."),
    )
    group_by = fields.String(
        validate=validate.OneOf(GROUPS), metadata=about("What `groups` and each period's `groups` are by.")
    )


class TrafficMetrics(ApiSchema):
    visits = fields.Integer(required=True, metadata=about("Agents' requests, spoofed claims left out."))
    verified_visits = fields.Integer(required=True, metadata=about("Of those, by verified agents."))
    success_rate = fields.Nested(Ratio, required=True, metadata=about("Answers 2xx or 3xx among the visits."))
    failure_rate = fields.Nested(Ratio, required=True, metadata=about("Answers 4xx or 5xx among the visits."))
    bytes = fields.Integer(required=True, metadata=about("Bytes answered to them."))


class TrafficTotals(TrafficMetrics):
    distinct_paths = fields.Integer(required=True, metadata=about("Paths the agents requested in the period."))
    spoofed_visits = fields.Integer(
        required=True, metadata=about("Requests claiming an agent from outside its operator's published addresses.")
    )


class GroupKey(ApiSchema):
    key = fields.String(
        required=True,
        metadata=about("The group: an agent id, operator, category, path, status class, or `true`/`false` (verified)."),
    )


class PeriodBounds(ApiSchema):
    start = fields.DateTime(required=True, metadata=about("The period's start, inclusive" + WHEN + "."))
    end = fields.DateTime(required=True, metadata=about("The period's end, exclusive" + WHEN + "."))


# marshmallow lists the fields of the last base first: a group's key, and a period's bounds, come
# before its metrics, as the answers have always listed them.
class TrafficGroup(TrafficMetrics, GroupKey):
    pass


class TrafficPoint(TrafficMetrics, PeriodBounds):
    groups = fields.List(
        fields.Nested(TrafficGroup),
        required=True,
        metadata=about("The period's sums by `groupBy`, of the groups in `groups`; empty without it."),
    )


class TrafficReferral(ApiSchema):
    platform = fields.String(required=True, metadata=about("The answer engine.", "chatgpt"))
    name = fields.String(required=True)
    operator = fields.String(required=True, metadata=about("Who runs it.", "OpenAI"))
    referrals = fields.Integer(required=True, metadata=about("Humans it sent to the Apps."))
    crawls = fields.Integer(required=True, metadata=about("Visits of its operator's agents."))
    crawl_to_refer = fields.Nested(
        Ratio, required=True, metadata=about("Crawls by the operator's agents per referral.")
    )


class TrafficPeriod(ApiSchema):
    from_ = fields.DateTime(required=True, data_key="from", metadata=about("The start, inclusive" + WHEN + "."))
    to = fields.DateTime(required=True, metadata=about("The end, exclusive" + WHEN + "."))
    bounds = fields.String(required=True, metadata=about("Always `[from, to)`: closed-open.", "[from, to)"))
    time_zone = fields.String(required=True, metadata=about("The zone of the periods: `UTC`.", "UTC"))
    granularity = fields.String(required=True, metadata=about("The series' periods: `hour`, `day` or `week`."))
    week_starts = fields.String(required=True, metadata=about("Weeks start on `monday`.", "monday"))


class TrafficSummary(ApiSchema):
    app_id = fields.String(required=True, allow_none=True)
    period = fields.Nested(TrafficPeriod, required=True, metadata=about("The period summed, and how."))
    group_by = fields.String(required=True, allow_none=True, metadata=about("What `groups` are by; null without."))
    totals = fields.Nested(TrafficTotals, required=True, metadata=about("The sums of the whole period."))
    groups = fields.List(
        fields.Nested(TrafficGroup),
        required=True,
        metadata=about("The sums by `groupBy` over the whole period, most visits first: the 100 largest."),
    )
    series = fields.List(
        fields.Nested(TrafficPoint),
        required=True,
        metadata=about("Every period of the range, in order, also those without visits."),
    )
    referrals = fields.List(
        fields.Nested(TrafficReferral),
        required=True,
        metadata=about("Per answer engine: humans it referred, its operator's crawls, and their ratio."),
    )


class AgentVerification(ApiSchema):
    ip_ranges = fields.Raw(
        required=True,
        metadata=about(
            "The operator's published addresses: `url` (the operator's list), `prefixes`, `complete` (a claim from"
            " elsewhere is spoofed), `publishedAt` (the list's own date), `fetchedAt`, and `via` when read from a copy."
        ),
    )
    rdns_suffixes = fields.List(
        fields.String(), required=True, metadata=about("Host name suffixes its forward-confirmed reverse DNS ends in.")
    )
    signature_agents = fields.List(
        fields.String(),
        required=True,
        metadata=about("The `Signature-Agent` origins whose key directory signs for it (Web Bot Auth)."),
    )


class Agent(ApiSchema):
    id = fields.String(required=True, metadata=about("The agent's id.", "gptbot"))
    name = fields.String(required=True)
    operator = fields.String(required=True, metadata=about("Who runs it.", "OpenAI"))
    category = fields.String(required=True, validate=validate.OneOf(CATEGORIES), metadata=about("What it fetches for."))
    robots_token = fields.String(
        required=True,
        allow_none=True,
        metadata=about("Its robots.txt user-agent token; null when it has none.", "GPTBot"),
    )
    patterns = fields.List(fields.String(), required=True, metadata=about("Regular expressions of its user agent."))
    docs = fields.String(required=True, allow_none=True, metadata=about("The operator's documentation of it."))
    source = fields.String(required=True, metadata=about("Where the entry comes from."))
    verification = fields.Nested(AgentVerification, required=True, metadata=about("How it can be verified."))


class AgentCatalog(ApiSchema):
    items = fields.List(fields.Nested(Agent), required=True)
    source = fields.Raw(required=True, metadata=about("Where the catalog comes from, its version and date."))
    referrers = fields.Raw(
        required=True,
        metadata=about("The answer engines whose referrals are counted: platform, name, operator, hosts."),
    )
