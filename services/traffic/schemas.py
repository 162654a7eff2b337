"""Request and response shapes of AI traffic. Answers are built as dicts by the handlers; the
response schemas document them in OpenAPI, and the suite checks every answer against them."""

from __future__ import annotations

import ipaddress
from datetime import datetime
from typing import Any

from marshmallow import ValidationError, fields, validate, validates

from libs.common.cursors import PageCursor
from libs.common.schemas import ApiSchema
from libs.common.validators import FullMatch, JsonInteger, QueryBoolean, StrictNumber, StrictString, UuidString, length
from services.traffic.curated import CATEGORIES
from services.traffic.store import STATUS_CLASSES

MAX_EVENTS = 1000
ID_MAX = 128
PATH_MAX = 4096
TEXT_MAX = 2048
SIGNATURE_MAX = 8192
PAGE_DEFAULT = 50
PAGE_MAX = 200
GRANULARITIES = ("hour", "day", "week")
GROUPS = ("bot", "operator", "category", "path", "statusClass", "verified")
METHOD = FullMatch(r"[A-Z]{1,16}", "An HTTP method in capitals, such as GET.")
EVENT_ID = FullMatch(r"[\x21-\x7e]{1,128}", "1 to 128 printable ASCII characters without spaces.")


class EventIn(ApiSchema):
    """One request an App's edge answered."""

    id = StrictString(
        required=True,
        validate=EVENT_ID,
        metadata={"description": "Unique per organization: an event sent again is counted once."},
    )
    occurred_at = fields.AwareDateTime(required=True)
    host = StrictString(required=True, validate=length(1, 253))
    path = StrictString(required=True, validate=[length(1, PATH_MAX), FullMatch(r"/\S*", "A path starting with /.")])
    method = StrictString(required=True, validate=METHOD)
    status = JsonInteger(required=True, validate=validate.Range(min=100, max=599))
    user_agent = StrictString(required=True, validate=length(0, TEXT_MAX))
    ip = StrictString(required=True, validate=length(2, 45))
    referer = StrictString(allow_none=True, validate=length(0, TEXT_MAX))
    bytes = JsonInteger(allow_none=True, validate=validate.Range(min=0))
    duration_ms = StrictNumber(allow_none=True, validate=validate.Range(min=0))
    signature = StrictString(allow_none=True, validate=length(1, SIGNATURE_MAX))
    signature_input = StrictString(allow_none=True, validate=length(1, SIGNATURE_MAX))
    signature_agent = StrictString(allow_none=True, validate=length(1, TEXT_MAX))

    @validates("ip")
    def _ip(self, value: str, **_: Any) -> None:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ValidationError("Not an IPv4 or IPv6 address.") from None


class Rejected(ApiSchema):
    index = fields.Integer(required=True)
    message = fields.String(required=True)


class IngestResult(ApiSchema):
    accepted = fields.Integer(required=True, metadata={"description": "Events stored now."})
    duplicates = fields.Integer(required=True, metadata={"description": "Events whose id was already stored."})
    dropped = fields.Integer(
        required=True, metadata={"description": "Human requests that no answer engine referred: not kept."}
    )
    rejected = fields.List(fields.Nested(Rejected), required=True)


class LogQuery(ApiSchema):
    app_id = UuidString()
    host = fields.String(validate=length(1, 253))
    bot_id = fields.String(validate=length(1, 100))
    category = fields.String(validate=validate.OneOf(CATEGORIES))
    verified = QueryBoolean()
    status_class = fields.String(validate=validate.OneOf(STATUS_CLASSES))
    path_prefix = fields.String(validate=[length(1, PATH_MAX), FullMatch(r"/\S*", "A path starting with /.")])
    from_ = fields.AwareDateTime(data_key="from")
    to = fields.AwareDateTime()
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(datetime.fromisoformat)


class LogEntry(ApiSchema):
    id = fields.String(required=True)
    occurred_at = fields.DateTime(required=True)
    received_at = fields.DateTime(required=True)
    source = fields.String(required=True, metadata={"description": "`ingest` (the API) or `edge` (the App edge)."})
    app_id = fields.String(required=True)
    domain_id = fields.String(required=True)
    host = fields.String(required=True)
    path = fields.String(required=True)
    method = fields.String(required=True)
    status = fields.Integer(required=True)
    user_agent = fields.String(required=True)
    client_network = fields.String(required=True, metadata={"description": "The client's /24 (IPv4) or /48 (IPv6)."})
    referer = fields.String(required=True, allow_none=True)
    bytes = fields.Integer(required=True, allow_none=True)
    duration_ms = fields.Float(required=True, allow_none=True)
    kind = fields.String(
        required=True, metadata={"description": "`agent`, or `referral` (a human from an answer engine)."}
    )
    bot_id = fields.String(required=True, allow_none=True)
    claimed_bot_id = fields.String(required=True, allow_none=True)
    operator = fields.String(required=True, allow_none=True)
    category = fields.String(required=True, allow_none=True)
    verified = fields.Boolean(required=True)
    matched_by = fields.String(
        required=True, allow_none=True, metadata={"description": "`ua`, `ip`, `rdns` or `signature`."}
    )
    spoofed = fields.Boolean(required=True)
    referral_platform = fields.String(required=True, allow_none=True)


class LogPage(ApiSchema):
    items = fields.List(fields.Nested(LogEntry), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class SummaryQuery(ApiSchema):
    app_id = UuidString()
    from_ = fields.AwareDateTime(
        data_key="from", metadata={"description": "Inclusive, a whole UTC hour; default 7 days before `to`."}
    )
    to = fields.AwareDateTime(metadata={"description": "Exclusive, a whole UTC hour; default the next whole hour."})
    granularity = fields.String(load_default="day", validate=validate.OneOf(GRANULARITIES))
    group_by = fields.String(validate=validate.OneOf(GROUPS))


class Ratio(ApiSchema):
    value = fields.Float(
        required=True, allow_none=True, metadata={"description": "count / total; null when total is 0."}
    )
    count = fields.Integer(required=True)
    total = fields.Integer(required=True)


class Metrics(ApiSchema):
    visits = fields.Integer(required=True)
    verified_visits = fields.Integer(required=True)
    success_rate = fields.Nested(Ratio, required=True)
    failure_rate = fields.Nested(Ratio, required=True)
    bytes = fields.Integer(required=True)


class Totals(Metrics):
    distinct_paths = fields.Integer(required=True)
    spoofed_visits = fields.Integer(required=True)


class Group(Metrics):
    key = fields.String(required=True)


class Point(Metrics):
    start = fields.DateTime(required=True)
    end = fields.DateTime(required=True)
    groups = fields.List(fields.Nested(Group), required=True)


class Referral(ApiSchema):
    platform = fields.String(required=True)
    name = fields.String(required=True)
    operator = fields.String(required=True)
    referrals = fields.Integer(required=True)
    crawls = fields.Integer(required=True)
    crawl_to_refer = fields.Nested(
        Ratio, required=True, metadata={"description": "Crawls by the operator's agents per referral."}
    )


class Period(ApiSchema):
    from_ = fields.DateTime(required=True, data_key="from")
    to = fields.DateTime(required=True)
    bounds = fields.String(required=True, metadata={"example": "[from, to)"})
    time_zone = fields.String(required=True, metadata={"example": "UTC"})
    granularity = fields.String(required=True)
    week_starts = fields.String(required=True, metadata={"example": "monday"})


class Summary(ApiSchema):
    app_id = fields.String(required=True, allow_none=True)
    period = fields.Nested(Period, required=True)
    group_by = fields.String(required=True, allow_none=True)
    totals = fields.Nested(Totals, required=True)
    groups = fields.List(fields.Nested(Group), required=True)
    series = fields.List(fields.Nested(Point), required=True)
    referrals = fields.List(fields.Nested(Referral), required=True)


class Verification(ApiSchema):
    ip_ranges = fields.Raw(required=True)
    rdns_suffixes = fields.List(fields.String(), required=True)
    signature_agents = fields.List(fields.String(), required=True)


class Bot(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    operator = fields.String(required=True)
    category = fields.String(required=True)
    robots_token = fields.String(required=True, allow_none=True)
    patterns = fields.List(fields.String(), required=True)
    docs = fields.String(required=True, allow_none=True)
    source = fields.String(required=True)
    verification = fields.Nested(Verification, required=True)


class BotList(ApiSchema):
    items = fields.List(fields.Nested(Bot), required=True)
    source = fields.Raw(required=True, metadata={"description": "Where the catalog comes from, its version and date."})
    referrers = fields.Raw(required=True)
