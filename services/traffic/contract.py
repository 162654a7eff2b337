"""AI traffic's public routes.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.route import Route
from services.traffic import schemas as s

PART = "traffic"
TAG = "AI traffic"

ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/api/v1/analytics/events",
        PART,
        "analytics:write",
        "ai_traffic_events_ingest",
        "Record requests an App's edge answered: a JSON array or NDJSON of at most 1,000 events or 1 MiB;"
        " idempotent by event id",
        body=s.TrafficEvent,
        body_many=s.MAX_EVENTS,
        response=s.TrafficIngestResult,
        tag=TAG,
    ),
    Route(
        "GET",
        "/api/v1/ai-traffic/logs",
        PART,
        "logs:read",
        "ai_traffic_logs_list",
        "The organization's AI-agent requests and referrals, newest first",
        query=s.TrafficLogQuery,
        response=s.TrafficLogPage,
        tag=TAG,
    ),
    Route(
        "GET",
        "/api/v1/ai-traffic/summary",
        PART,
        "analytics:read",
        "ai_traffic_summary",
        "Visits, verification, success and failure rates, paths and referrals over a closed-open UTC period",
        query=s.TrafficSummaryQuery,
        response=s.TrafficSummary,
        tag=TAG,
    ),
    Route(
        "GET",
        "/api/v1/ai-traffic/bots",
        PART,
        None,
        "ai_traffic_bots_list",
        "The catalog of AI agents: operator, category, robots.txt token, patterns and verification",
        response=s.AgentCatalog,
        tag=TAG,
    ),
)
