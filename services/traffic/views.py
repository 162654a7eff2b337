"""Handlers of AI traffic: ingest, logs, summary, and the agent catalog."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from libs.common.cursors import page_of
from libs.common.encoding import json_response
from libs.common.errors import ValidationFailed
from libs.common.schemas import load_query
from libs.common.state import caller_of
from services.traffic import schemas
from services.traffic.batches import load_event, parse_batch
from services.traffic.recording import Outcome
from services.traffic.shapes import INGEST_RESULT, LOG_ENTRY
from services.traffic.state import CATALOG, HOSTS, RECORDER, STORE
from services.traffic.store import LogFilters, SummaryQuery
from services.traffic.summary import shape

LOG_QUERY = schemas.TrafficLogQuery()
SUMMARY_QUERY = schemas.TrafficSummaryQuery()
DEFAULT_SPAN = timedelta(days=7)
# Far past any traffic kept, and far from the calendar's ends.
EARLIEST, LATEST = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)
LONGEST_SPAN = {"hour": timedelta(days=31), "day": timedelta(days=400), "week": timedelta(days=800)}


def canonical_host(host: str) -> str:
    """A host as the apps service keeps it: lower case, without a port or a final dot."""
    name = host.strip().lower()
    if not name.startswith("["):
        name = name.rsplit(":", 1)[0] if name.count(":") == 1 else name
    return name.rstrip(".")


async def ai_traffic_events_ingest(request: web.Request) -> web.Response:
    """POST /api/v1/analytics/events: record a batch of requests an App's edge answered."""
    items = parse_batch(await request.read(), request.content_type)
    outcome = Outcome()
    loaded: list[tuple[int, dict[str, Any]]] = []
    for index, item in enumerate(items):
        try:
            event = load_event(item)
        except ValueError as exc:
            outcome.reject(index, str(exc))
            continue
        loaded.append((index, event | {"host": canonical_host(event["host"])}))
    caller = caller_of(request)
    hosts = await request.app[HOSTS].lookup(caller, {event["host"] for _, event in loaded}) if loaded else {}
    events = [(index, event, hosts.get(event["host"])) for index, event in loaded]
    await request.app[RECORDER].record(caller.org.id, events, "ingest", datetime.now(UTC), outcome)
    outcome.rejected.sort(key=lambda rejected: rejected["index"])
    return json_response(INGEST_RESULT.of(vars(outcome)))


async def ai_traffic_logs_list(request: web.Request) -> web.Response:
    """GET /api/v1/ai-traffic/logs: the organization's recorded requests, newest first, by cursor."""
    query = load_query(request, LOG_QUERY)
    limit, after = query.pop("limit"), query.pop("cursor", None)
    filters = LogFilters(start=query.pop("from_", None), end=query.pop("to", None), **query)
    found = await request.app[STORE].logs(caller_of(request).org.id, filters, after, limit + 1)
    page, next_cursor = page_of(found, limit, lambda row: (row["occurred_at"], str(row["uid"])))
    return json_response({"items": [LOG_ENTRY.of(row) for row in page], "nextCursor": next_cursor})


def _whole_hour(moment: datetime, name: str) -> datetime:
    utc = moment.astimezone(UTC)
    if utc.minute or utc.second or utc.microsecond:
        raise ValidationFailed(details={name: "Must be a whole UTC hour, such as 2026-11-28T14:00:00Z."})
    if not EARLIEST <= utc <= LATEST:
        raise ValidationFailed(details={name: "Must be between 2000 and 2100."})
    return utc


def summary_query(query: dict[str, Any], now: datetime) -> SummaryQuery:
    end = (
        _whole_hour(query["to"], "to")
        if "to" in query
        else now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    )
    start = _whole_hour(query["from_"], "from") if "from_" in query else end - DEFAULT_SPAN
    granularity = query["granularity"]
    if start >= end:
        raise ValidationFailed(details={"from": "Must be before `to`."})
    if end - start > LONGEST_SPAN[granularity]:
        raise ValidationFailed(details={"to": f"At most {LONGEST_SPAN[granularity].days} days by {granularity}."})
    return SummaryQuery(query.get("app_id"), start, end, granularity, query.get("group_by"))


async def ai_traffic_summary(request: web.Request) -> web.Response:
    """GET /api/v1/ai-traffic/summary: visits, verification, rates, paths and referrals over a period."""
    return await summary_of(request)


async def internal_traffic_summary(request: web.Request) -> web.Response:
    """GET /internal/ai-traffic/summary: the same, for another part acting for the organization
    (the analytics part's ai_traffic report)."""
    return await summary_of(request)


async def summary_of(request: web.Request) -> web.Response:
    query = summary_query(load_query(request, SUMMARY_QUERY), datetime.now(UTC))
    found = await request.app[STORE].summary(caller_of(request).org.id, query)
    return json_response(shape(query, found, request.app[CATALOG]))


async def ai_traffic_bots_list(request: web.Request) -> web.Response:
    """GET /api/v1/ai-traffic/bots: the catalog of AI agents, with how each is verified."""
    catalog = request.app[CATALOG]
    referrers = [
        {"platform": r.platform, "name": r.name, "operator": r.operator, "hosts": list(r.hosts)}
        for r in catalog.referrers
    ]
    return json_response(
        {"items": [agent.document for agent in catalog.agents], "source": catalog.source, "referrers": referrers}
    )
