"""Route candidates: the documents of an app's products, each with the path it would get and whether it is free.

`pathStatus` (docs/architecture.md, "Apps service", writes the set down), first match wins:
- `already_routed`: the app already routes to the document (`existingRoute`);
- `path_conflict`: the suggested path is taken by a route to another target (`pathConflict`);
- `invalid_path`: the suggested path is longer than a route path may be;
- `available`: a route at the suggested path can be created.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from libs.contract.validators import NOT_IN_ROUTE_PATH, ROUTE_PATH_MAX, normalize_route_path
from services.apps.route_import import Route, existing_route, first_route_by_target, is_same_target, path_conflict

TARGET_TYPE = "product_document"
# The characters a route path may not hold, percent-encoded as a URL would.
_NOT_IN_A_PATH = re.compile(f"[{NOT_IN_ROUTE_PATH}]")


def suggest_path(file_path: str | None) -> str:
    """The route path a document's file path suggests, in canonical form."""
    encoded = _NOT_IN_A_PATH.sub(lambda match: quote(match.group()), file_path or "")
    return normalize_route_path(encoded)


def suggested_paths(documents: list[dict[str, Any]]) -> dict[str, str]:
    return {document["id"]: suggest_path(document.get("filePath")) for document in documents}


def route_candidates(
    documents: list[dict[str, Any]],
    suggested: dict[str, str],
    routes: list[Route],
    products: Mapping[str, dict[str, str]],
    include_routed: bool,
) -> list[dict[str, Any]]:
    """The candidates among `documents` (of `products`, by id), in the documents' order, given the
    app's `routes` at their suggested paths or to them."""
    by_key = {route["pathKey"]: route for route in routes}
    by_target = first_route_by_target(routes)
    candidates = []
    for document in documents:
        routed = by_target.get(document["id"])
        if routed is not None and not include_routed:
            continue
        path = suggested[document["id"]]
        at_path = by_key.get(path)  # a suggested path is canonical: its own key
        same = at_path is not None and is_same_target(at_path, TARGET_TYPE, document["id"])
        conflicting = at_path if at_path is not None and not same else None
        if routed is not None:
            status = "already_routed"
        elif conflicting is not None:
            status = "path_conflict"
        elif len(path) > ROUTE_PATH_MAX:
            status = "invalid_path"
        else:
            status = "available"
        candidates.append(
            {
                "targetType": TARGET_TYPE,
                "targetId": document["id"],
                "suggestedPath": path,
                "pathStatus": status,
                "existingRoute": existing_route(routed),
                "pathConflict": path_conflict(conflicting),
                "target": document,
                "product": products[document["productId"]],
            }
        )
    return candidates
