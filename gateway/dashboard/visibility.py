"""A product's visibility in AI answers, in the dashboard: its tracked prompts (create, archive,
run now), its competitors (add, remove) and its answers, each answer shown with the brands it
names and the pages it cites highlighted, a page of the organization's Apps linked to its route.

Every read and write is a call of the API's routes for the signed-in person (gateway/dashboard/api.py);
a form's refusal (422, 409) is shown on the page that sent it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

from gateway import product_queries
from gateway.dashboard import api
from gateway.dashboard.apps import route_page
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.products import product_of
from gateway.dashboard.render import flash, render
from gateway.shapes import PRODUCT_DETAIL
from libs.common.db import cursor
from libs.common.errors import ApiError, NotFound
from libs.common.state import DB_POOL

PAGE_SIZE = 25


def _base(membership: Any, product: Any) -> str:
    return f"/{membership.slug}/products/{product['slug']}"


def _problem(error: ApiError) -> str:
    """What a refused form is told: the first field's message, else the error's."""
    details = error.details if isinstance(error.details, dict) else {}
    return "; ".join(f"{name}: {message}" for name, message in details.items()) or error.message


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.replace(",", "\n").splitlines() if line.strip()]


# Prompts.


async def prompts_page(request: web.Request, problem: str | None = None, status: int = 200) -> web.Response:
    """GET /{orgSlug}/products/{product}/prompts: tracked prompts, newest first, by status."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    wanted = request.query.get("status", "")
    query: dict[str, str | int | bool | None] = {
        "limit": PAGE_SIZE,
        "status": wanted,
        "cursor": request.query.get("cursor", ""),
    }
    listing = await api.call(request, "prompts_list", productId=str(product["id"]), query=query)
    engines = (await api.call(request, "engines_list"))["items"]
    context = {
        "membership": membership,
        "product": product,
        "prompts": listing["items"],
        "next_cursor": listing["nextCursor"],
        "status": wanted,
        "engines": engines,
        "problem": problem,
        "can_write": await api.permits(request, "prompts_create"),
        "configured": [engine["id"] for engine in engines if engine["configured"]],
    }
    return await render(request, "prompts.html", context, status=status)


async def prompts_create(request: web.Request) -> web.Response:
    """POST …/prompts: track the prompt the form describes."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    form = await request.post()
    body: dict[str, Any] = {"text": str(form.get("text", "")).strip(), "cadence": str(form.get("cadence", "daily"))}
    engines = [str(engine) for engine in form.getall("engines", [])]
    if engines:
        body["engines"] = engines
    tags = _lines(str(form.get("tags", "")))
    if tags:
        body["tags"] = tags
    try:
        await api.call(request, "prompts_create", productId=str(product["id"]), json=body)
    except ApiError as error:
        if error.status not in (409, 422):
            raise
        return await prompts_page(request, _problem(error), status=error.status)
    await flash(request, "Prompt tracked.")
    raise web.HTTPSeeOther(_base(membership, product) + "/prompts")


async def prompts_archive(request: web.Request) -> web.Response:
    """POST …/prompts/{prompt}/archive."""
    return await _prompt_action(request, "archive")


async def prompts_unarchive(request: web.Request) -> web.Response:
    """POST …/prompts/{prompt}/unarchive."""
    return await _prompt_action(request, "unarchive")


async def prompts_run(request: web.Request) -> web.Response:
    """POST …/prompts/{prompt}/run: ask the engines the prompt now."""
    return await _prompt_action(request, "run")


async def _prompt_action(request: web.Request, action: str) -> web.Response:
    _, membership = await member(request)
    product = await product_of(request, membership)
    prompt_id = request.match_info["prompt"]
    try:
        if action == "run":
            run = await api.call(
                request, "prompt_runs_create", json={"productId": str(product["id"]), "promptIds": [prompt_id]}
            )
            message = f"Run queued: {run['progress']['total']} answers to ask."
        else:
            await api.call(request, f"prompts_{action}", promptId=prompt_id)
            message = "Prompt archived." if action == "archive" else "Prompt active again."
    except ApiError as error:
        if error.status not in (409, 422):
            raise
        return await prompts_page(request, _problem(error), status=error.status)
    await flash(request, message)
    raise web.HTTPSeeOther(_base(membership, product) + "/prompts")


# Competitors.


async def competitors_page(request: web.Request, problem: str | None = None, status: int = 200) -> web.Response:
    """GET /{orgSlug}/products/{product}/competitors: the product's competitors and its brand."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    query = {"limit": 200}
    listing = await api.call(request, "competitors_list", productId=str(product["id"]), query=query)
    # The brand is the gateway's own record, read from its schema (behind products:read, checked above).
    async with cursor(request.config_dict[DB_POOL]) as cur:
        row = await product_queries.product_brand(cur, membership.organization_id, str(product["id"]))
    if row is None:
        raise NotFound("There is no such product in this organization.")
    detail = PRODUCT_DETAIL.of(row)
    context = {
        "membership": membership,
        "product": product,
        "competitors": listing["items"],
        "brand": detail["brand"],
        "version": listing["competitorSetVersion"],
        "problem": problem,
        "can_write": await api.permits(request, "competitors_update"),
    }
    return await render(request, "competitors.html", context, status=status)


async def competitors_create(request: web.Request) -> web.Response:
    """POST …/competitors: add the competitor the form describes."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    form = await request.post()
    body = {
        "name": str(form.get("name", "")).strip(),
        "aliases": _lines(str(form.get("aliases", ""))),
        "domains": _lines(str(form.get("domains", ""))),
    }
    try:
        await api.call(request, "competitors_create", productId=str(product["id"]), json=body)
    except ApiError as error:
        if error.status not in (409, 422):
            raise
        return await competitors_page(request, _problem(error), status=error.status)
    await flash(request, f"{body['name']} added.")
    raise web.HTTPSeeOther(_base(membership, product) + "/competitors")


async def competitors_delete(request: web.Request) -> web.Response:
    """POST …/competitors/{competitor}/delete."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    removed = await api.call(request, "competitors_delete", competitorId=request.match_info["competitor"])
    await flash(request, f"{removed['name']} removed.")
    raise web.HTTPSeeOther(_base(membership, product) + "/competitors")


# Answers.


async def answers_page(request: web.Request) -> web.Response:
    """GET /{orgSlug}/products/{product}/answers: answers, newest first, by engine and brand mention."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    filters = {name: request.query.get(name, "") for name in ("engine", "brandMentioned", "promptId")}
    query: dict[str, str | int | bool | None] = {
        "productId": str(product["id"]),
        "limit": PAGE_SIZE,
        "cursor": request.query.get("cursor", ""),
        **filters,
    }
    listing = await api.call(request, "answers_list", query=query)
    engines = (await api.call(request, "engines_list"))["items"]
    context = {
        "membership": membership,
        "product": product,
        "answers": listing["items"],
        "filters": filters,
        "next_cursor": listing["nextCursor"],
        "engines": engines,
        "problem": None,
    }
    return await render(request, "answers.html", context)


@dataclass(frozen=True)
class Piece:
    """A piece of an answer's text: plain, a brand it names, or the URL of a page it cites."""

    text: str
    brand: dict[str, Any] | None = None
    citation: dict[str, Any] | None = None


def highlighted(text: str, brands: list[dict[str, Any]], citations: list[dict[str, Any]]) -> list[Piece]:
    """The answer's text cut at its mentions and at the URLs it cites, in order. Where two overlap,
    the one starting first wins (of two starting together, the longer; then the mention)."""
    marks = [(s["start"], s["end"], Piece(text[s["start"] : s["end"]], brand=b)) for b in brands for s in b["spans"]]
    marks += [
        (s["start"], s["end"], Piece(text[s["start"] : s["end"]], citation=c)) for c in citations for s in c["spans"]
    ]
    pieces: list[Piece] = []
    at = 0
    for start, end, mark in sorted(marks, key=lambda found: (found[0], -found[1])):
        if start < at:
            continue
        if start > at:
            pieces.append(Piece(text[at:start]))
        pieces.append(mark)
        at = end
    if at < len(text):
        pieces.append(Piece(text[at:]))
    return pieces


async def answer_page(request: web.Request) -> web.Response:
    """GET /{orgSlug}/products/{product}/answers/{answer}: the answer with its analysis, each cited
    page served by an App route linked to the route's page (for those who may edit routes)."""
    _, membership = await member(request)
    product = await product_of(request, membership)
    answer = await api.call(request, "answers_get", answerId=request.match_info["answer"])
    analysis = answer["analysis"] or {"brands": [], "citations": []}
    pieces = highlighted(answer["text"], analysis["brands"], analysis["citations"])
    routed = [citation for citation in analysis["citations"] if citation["appRoute"]]
    route_pages = {}
    if routed and await api.permits(request, "apps_routes_update"):
        route_pages = {
            c["url"]: route_page(request, membership, c["appRoute"]["appId"], c["appRoute"]["routeId"]) for c in routed
        }
    context = {
        "membership": membership,
        "product": product,
        "answer": answer,
        "analysis": answer["analysis"],
        "pieces": pieces,
        "route_pages": route_pages,
        "problem": None,
    }
    return await render(request, "answer.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    base = f"/{ORG}/products/{{product}}"
    router.add_get(base + "/prompts", prompts_page, name="dashboard.prompts")
    router.add_post(base + "/prompts", prompts_create, name="dashboard.prompts_create")
    router.add_post(base + "/prompts/{prompt}/archive", prompts_archive, name="dashboard.prompts_archive")
    router.add_post(base + "/prompts/{prompt}/unarchive", prompts_unarchive, name="dashboard.prompts_unarchive")
    router.add_post(base + "/prompts/{prompt}/run", prompts_run, name="dashboard.prompts_run")
    router.add_get(base + "/competitors", competitors_page, name="dashboard.competitors")
    router.add_post(base + "/competitors", competitors_create, name="dashboard.competitors_create")
    router.add_post(base + "/competitors/{competitor}/delete", competitors_delete, name="dashboard.competitors_delete")
    router.add_get(base + "/answers", answers_page, name="dashboard.answers")
    router.add_get(base + "/answers/{answer}", answer_page, name="dashboard.answer")
