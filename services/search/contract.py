"""The search service's public routes.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.route import Route
from services.search import schemas as search

PART = "search"

ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/api/v1/content/search/{orgId}",
        PART,
        "content:read",
        "content_search",
        "Semantic search over the organization's content",
        org_param="orgId",
        timeout=5.0,
        tag="Content",
        read_only=True,
        body=search.SearchRequest,
        response=search.SearchResult,
    ),
)
