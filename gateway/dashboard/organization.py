"""/{orgSlug}: the organization's landing page; /{orgSlug}/runs: its simulation runs, each with its steps.

Every figure is what the API answers the signed-in person (gateway/dashboard/api.py): a section
their role cannot read is left out, not shown empty.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from gateway import product_queries, queries
from gateway.dashboard import api
from gateway.dashboard.render import render
from gateway.dashboard.session import Membership, SignedIn, require_membership
from gateway.identity.auth import key_queries
from libs.common.db import cursor
from libs.common.errors import ValidationFailed
from libs.common.state import DB_POOL
from services.simulations.contract import RUN_STATUSES

# An organization's slug as the first segment of a page's path. The gateway's other first segments
# are not organizations: `/metrics` or `/internal/...` stay 404s (or 405s) of their own, never a page.
RESERVED = (
    "api",
    "internal",
    "metrics",
    "static",
    "docs",
    "oauth",
    "device",
    "login",
    "logout",
    "orgs",
    "healthz",
    "readyz",
    "invitations",
)
ORG = "{org:(?!(?:" + "|".join(RESERVED) + ")(?:/|$))[a-z0-9]+(?:-[a-z0-9]+)*}"
RUNS_PAGE_SIZE = 25
RUN_STEPS = 200
# Suggestions for the status filter; a run's status is free text, so any other is searched as typed.


async def member(request: web.Request) -> tuple[SignedIn, Membership]:
    """The signed-in person and their membership of the page's organization (404 for any other)."""
    return await require_membership(request, request.match_info["org"])


def page_number(request: web.Request) -> int:
    """The `page` query parameter (1 when absent); anything but a positive whole number is a 422."""
    text = request.query.get("page", "1")
    if not text.isdigit() or int(text) < 1 or int(text) > 1_000_000:
        raise ValidationFailed("The page number must be a whole number from 1.")
    return int(text)


async def landing(request: web.Request) -> web.Response:
    """GET /{orgSlug}: what the organization has, section by section, as far as the role reads."""
    signed_in, membership = await member(request)
    sections: dict[str, Any] = {}
    if await api.permits(request, "products_list"):
        async with cursor(request.config_dict[DB_POOL]) as cur:
            sections["products"] = await product_queries.list_products(cur, membership.organization_id)
    if await api.permits(request, "apps_list"):
        sections["apps"] = await api.call(request, "apps_list")
    if await api.permits(request, "simulation_runs_list"):
        sections["runs"] = await api.call(request, "simulation_runs_list", query={"limit": 5})
    async with cursor(request.config_dict[DB_POOL]) as cur:
        members = await queries.list_users(cur, membership.organization_id)
        keys = await key_queries.list_api_keys(cur, membership.organization_id)
    context = {"membership": membership, "sections": sections, "member_count": len(members), "key_count": len(keys)}
    return await render(request, "landing.html", context)


async def runs(request: web.Request) -> web.Response:
    """GET /{orgSlug}/runs: the runs, newest first, filtered by status and outcome, a page at a time."""
    _, membership = await member(request)
    page = page_number(request)
    status = request.query.get("status", "").strip()
    passed = request.query.get("passed", "")
    if passed not in ("", "true", "false"):
        raise ValidationFailed("Choose passed, failed or any outcome.")
    query: dict[str, str | int] = {
        "status": status,
        "passed": passed,
        "limit": RUNS_PAGE_SIZE,
        "offset": (page - 1) * RUNS_PAGE_SIZE,
    }
    answer = await api.call(request, "simulation_runs_list", query=query)
    total = answer["total"]
    context = {
        "membership": membership,
        "runs": answer["runs"],
        "total": total,
        "page": page,
        "pages": max(1, -(-total // RUNS_PAGE_SIZE)),
        "filters": {"status": status, "passed": passed},
        "statuses": RUN_STATUSES,
    }
    return await render(request, "runs.html", context)


async def run(request: web.Request) -> web.Response:
    """GET /{orgSlug}/runs/{runId}: one run, its task, environment, scores, each criterion's verdict
    and its steps (the first page of them: a run's trajectory is a few dozen steps)."""
    _, membership = await member(request)
    found = await api.call(request, "simulation_runs_get", runId=request.match_info["run"])
    steps = await api.call(request, "simulation_runs_steps", runId=found["id"], query={"limit": RUN_STEPS})
    context = {"membership": membership, "run": found, "steps": steps["items"], "more_steps": steps["nextCursor"]}
    return await render(request, "run.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get(f"/{ORG}", landing, name="dashboard.landing")
    router.add_get(f"/{ORG}/runs", runs, name="dashboard.runs")
    router.add_get(f"/{ORG}/runs/{{run}}", run, name="dashboard.run")
