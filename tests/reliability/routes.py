"""Requests generated from the gateway's route table: every route, its path, query and body
filled with the ids a test chooses."""

from __future__ import annotations

import re
from typing import Any

from gateway.edge.route_table import ROUTES

PARAMETER = re.compile(r"{(\w+)}")


def documented_routes() -> list[Any]:
    """The routes the gateway serves and documents (a route without a response schema is a
    service not built yet)."""
    return [route for route in ROUTES if getattr(route, "response", None) is not None]


def route_id(route: Any) -> str:
    return f"{route.method} {route.path}"


# A body per operation that names the ids of its kind; `{key}` is replaced by the id under that
# key. An operation not listed sends `{}` (its product field, if it has one, filled in).
BODIES: dict[str, dict[str, Any]] = {
    "site_pages_create": {"pages": [{"slug": "isolation-probe", "title": "Probe"}]},
    "site_pages_update": {"pages": [{"id": "{document}", "title": "Probe"}]},
    "site_pages_delete": {"pageIds": ["{document}"]},
    "content_set_priority": {"priority": 10},
    "content_update": {"title": "Probe"},
    "content_domains_update": {"attach": ["{domain}"]},
    "content_search": {"query": "probe"},
    "apps_update": {"name": "Probe"},
    "apps_config_update": {"config": {"probe": True}},
    "apps_resources_create": {"resourceId": "{product}"},
    "apps_domains_create": {"domain": "isolation-probe.example.com"},
    "apps_routes_preview": {"routes": [{"path": "/probe", "targetId": "{document}", "targetType": "product_document"}]},
    "apps_routes_batch": {"routes": [{"path": "/probe", "targetId": "{document}", "targetType": "product_document"}]},
    "apps_routes_update": {"targetId": "{document}"},
    "personas_create": {"name": "Probe", "description": "Probe"},
    "personas_update": {"name": "Probe"},
    "topics_create": {"name": "Probe"},
    "prompt_suggestions_review": {"status": "accepted"},
    "products_update": {"brand": {"name": "Probe"}},
    "competitors_create": {"name": "Probe"},
    "competitors_update": {"name": "Probe"},
    "prompts_create": {"text": "Probe"},
    "prompts_update": {"text": "Probe"},
    "answers_ingest": {
        "id": "probe",
        "prompt": "Probe",
        "engine": "probe",
        "model": "probe",
        "text": "Probe",
        "answeredAt": "2026-11-20T00:00:00Z",
    },
    "answers_reanalyse": {"answerIds": ["{answer}"]},
    "prompt_runs_create": {"promptIds": ["{prompt}"]},
}

# Which id a path parameter names; `id` is a content document, except under /domain/.
PATH_IDS = {
    "orgId": "organization",
    "productId": "product",
    "brandId": "product",
    "appId": "app",
    "routeId": "route",
    "domainId": "domain",
    "appResourceId": "resource",
    "personaId": "persona",
    "suggestionId": "suggestion",
    "runId": "run",
    "endpointId": "endpoint",
    "deliveryId": "delivery",
    "competitorId": "competitor",
    "promptId": "prompt",
    "answerId": "answer",
    "taskId": "task",
    "environmentId": "environment",
}


def names_ids(route: Any) -> bool:
    """Whether a call of `route` names an id anywhere (path, query or body)."""
    return bool(
        PARAMETER.search(route.path)
        or route.product_query
        or route.product_body
        or PARAMETER.search(str(BODIES.get(route.name, {})))
    )


def _fill(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return PARAMETER.sub(lambda match: ids[match.group(1)], value)
    if isinstance(value, list):
        return [_fill(item, ids) for item in value]
    if isinstance(value, dict):
        return {key: _fill(item, ids) for key, item in value.items()}
    return value


def request_for(route: Any, ids: dict[str, str]) -> tuple[str, dict[str, str], dict[str, Any] | None]:
    """The path, query and body of a call of `route` naming the ids in `ids` (by kind)."""

    def path_id(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "id":
            return ids["domain" if route.path.startswith("/api/v1/domain/") else "document"]
        return ids[PATH_IDS[name]]

    path = PARAMETER.sub(path_id, route.path)
    query: dict[str, str] = {}
    if route.product_query is not None:
        query[route.product_query] = ids["product"]
    if route.name == "content_get_by_path":
        query["path"] = "/isolation-secret"
    body: dict[str, Any] | None = None
    if route.method in ("POST", "PUT", "PATCH", "DELETE"):
        body = _fill(BODIES.get(route.name, {}), ids)
        if route.product_body is not None:
            body[route.product_body] = ids["product"]
    return path, query, body
