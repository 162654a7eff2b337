"""The one check of a route import: the preview answers it, and the batch creates only what it allows.

Per item, in this order (docs/architecture.md, "Apps service", writes the sets down):
- `target_not_found`: the target is not a live document of the caller's organization;
- `duplicate_in_request`: an earlier item of the same request has the same canonical path (key);
- `path_conflict`: the app has a route at that path to another target (`pathConflict`);
- `already_routed`: the app already routes to that target (`existingRoute`); informational.
The first three make the item a `conflict`; otherwise an identical existing route makes it a
`skip` (so a retried batch changes nothing) and anything else a `create`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.contract.validators import normalize_route_path, rfc3986_route_path

BLOCKING_ISSUES = frozenset({"target_not_found", "duplicate_in_request", "path_conflict"})

Route = dict[str, Any]


@dataclass(frozen=True)
class ImportItem:
    path: str  # as sent, RFC 3986-normalised: what a created route keeps
    key: str  # canonical: what decides that two paths are one
    target_type: str
    target_id: str
    input: dict[str, str]  # the item as submitted


def import_items(routes: list[dict[str, str]]) -> list[ImportItem]:
    """Loaded request items, with the paths routes keep and their keys."""
    return [
        ImportItem(
            path=rfc3986_route_path(route["path"]),
            key=normalize_route_path(route["path"]),
            target_type=route["target_type"],
            target_id=route["target_id"],
            input={"path": route["path"], "targetId": route["target_id"], "targetType": route["target_type"]},
        )
        for route in routes
    ]


def first_route_by_target(routes: list[Route]) -> dict[str, Route]:
    """Each target's route with the lowest path: the one named when a target has several."""
    by_target: dict[str, Route] = {}
    for route in sorted(routes, key=lambda route: route["path"]):
        by_target.setdefault(route["targetId"], route)
    return by_target


def existing_route(route: Route | None) -> dict[str, str] | None:
    return None if route is None else {"id": route["id"], "path": route["path"]}


def path_conflict(route: Route | None) -> dict[str, str] | None:
    if route is None:
        return None
    return {"id": route["id"], "path": route["path"], "targetType": route["targetType"], "targetId": route["targetId"]}


def is_same_target(route: Route, target_type: str, target_id: str) -> bool:
    return bool(route["targetType"] == target_type and route["targetId"] == target_id)


def preview_import(
    app_id: str,
    items: list[ImportItem],
    existing: list[Route],
    targets: Mapping[str, dict[str, Any]],
    products: Mapping[str, dict[str, Any]],
) -> dict[str, Any]:
    """The preview of importing `items` into an app whose routes at those paths or targets are `existing`."""
    by_key = {route["pathKey"]: route for route in existing}
    by_target = first_route_by_target(existing)
    seen: set[str] = set()
    entries = []
    counts = {"create": 0, "skip": 0, "conflict": 0}
    for item in items:
        issues = []
        target = targets.get(item.target_id)
        if target is None:
            issues.append("target_not_found")
        if item.key in seen:
            issues.append("duplicate_in_request")
        seen.add(item.key)
        at_path = by_key.get(item.key)
        identical = at_path is not None and is_same_target(at_path, item.target_type, item.target_id)
        conflicting = at_path if at_path is not None and not identical else None
        if conflicting is not None:
            issues.append("path_conflict")
        routed = at_path if identical else by_target.get(item.target_id)
        if routed is not None:
            issues.append("already_routed")
        action = "conflict" if BLOCKING_ISSUES.intersection(issues) else "skip" if identical else "create"
        counts[action] += 1
        entries.append(
            {
                "input": item.input,
                "action": action,
                "issues": issues,
                "existingRoute": existing_route(routed),
                "pathConflict": path_conflict(conflicting),
                "target": target,
                "product": None if target is None else products.get(target["productId"]),
            }
        )
    return {
        "appId": app_id,
        "valid": counts["conflict"] == 0,
        "createCount": counts["create"],
        "conflictCount": counts["conflict"],
        "skipCount": counts["skip"],
        "routes": entries,
    }
