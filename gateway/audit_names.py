"""How the audit trail names what a request did: one name per resource type (`app`, never `apps`
beside `app`) and an action as a person says it (`app.created`, `domain.verified`).

Both are read from the route's declared path: each collection segment names a resource type,
each parameter after it that resource's id, and a final segment that is no collection is the
action done to the resource before it (`/domains/{domainId}/verify`). A create takes the new
resource's id from the answer. Routes that say otherwise are listed in `SPECIAL`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.contract.route import Route

# The resource type each collection segment of a path names.
COLLECTIONS = {
    "apps": "app",
    "deleted-apps": "app",
    "resources": "app_resource",
    "domains": "domain",
    "domain": "domain",
    "routes": "route",
    "content": "document",
    "pages": "page",
    "products": "product",
    "personas": "persona",
    "topics": "topic",
    "prompt-suggestions": "prompt_suggestion",
    "webhook-endpoints": "webhook_endpoint",
    "deliveries": "webhook_delivery",
    "competitors": "competitor",
    "prompts": "prompt",
    "prompt-runs": "prompt_run",
    "answers": "answer",
    "tasks": "simulation_task",
    "environments": "simulation_environment",
    "runs": "simulation_run",
    "events": "ai_traffic_event",
}
# A final action segment, as the past participle a log line reads.
ACTIONS = {
    "verify": "verified",
    "restore": "restored",
    "rotate-secret": "secret_rotated",
    "test": "test_sent",
    "retry": "retried",
    "batch": "created",
    "regenerate": "regenerated",
    "app-config": "config_updated",
    "archive": "archived",
    "unarchive": "unarchived",
    "cancel": "cancelled",
    "reanalyse": "reanalysis_requested",
}
BY_METHOD = {"POST": "created", "PUT": "updated", "PATCH": "updated", "DELETE": "deleted"}
# Routes whose path does not say what they do: (resource type, action).
SPECIAL = {
    "content_set_priority": ("document", "priority_set"),
    "content_domains_update": ("document", "domains_updated"),
    "prompt_suggestions_review": ("prompt_suggestion", "reviewed"),
}


@dataclass(frozen=True)
class AuditName:
    action: str
    resource_type: str | None
    resource_id: str | None


def audit_name(route: Route, match_info: Mapping[str, str], created_id: str | None) -> AuditName:
    """What a change through `route` is called, and the resource it changed."""
    resource_type: str | None = None
    resource_id: str | None = None
    action = BY_METHOD.get(route.method, route.method.lower())
    segments = route.path.split("/")[3:]  # past /api/v1
    for index, segment in enumerate(segments):
        if segment.startswith("{"):
            resource_id = match_info.get(segment.strip("{}"), resource_id)
        elif segment in COLLECTIONS:
            resource_type, resource_id = COLLECTIONS[segment], None
        elif index == len(segments) - 1:
            action = ACTIONS.get(segment, segment.replace("-", "_"))
    if route.name in SPECIAL:
        resource_type, action = SPECIAL[route.name]
    if created_id is not None:
        resource_id = created_id
    return AuditName(f"{resource_type or 'api'}.{action}", resource_type, resource_id)
