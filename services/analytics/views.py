"""Handlers of the analytics part: the engine catalog and answers.

A product id in a request was checked by the gateway against the caller's organization; the
product it found arrives in the internal token.
"""

from __future__ import annotations

import hashlib
from typing import Any

from aiohttp import web

from libs.common.db import Row, cursor, transaction
from libs.common.encoding import dumps, json_response
from libs.common.errors import Conflict, NotFound, ValidationFailed
from libs.common.schemas import load_json, load_query, path_id
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.analytics import queries
from services.analytics.analysis.analyse import ANALYSIS_VERSION
from services.analytics.schemas import AnswerIngest, AnswerListQuery, ReanalysisRequest
from services.analytics.settings import AnalyticsSettings
from services.analytics.shapes import ENGINE, answer, engine_row
from services.analytics.state import ANALYSER, PERSONAS

ANSWER_INGEST = AnswerIngest()
ANSWER_LIST_QUERY = AnswerListQuery()
REANALYSIS_REQUEST = ReanalysisRequest()


async def engines_list(request: web.Request) -> web.Response:
    """GET /api/v1/engines: the engine catalog, each engine with the model asked and whether this
    deployment holds its key."""
    settings: AnalyticsSettings = request.app[SETTINGS]
    return json_response({"items": [ENGINE.of(engine_row(access)) for access in settings.engines]})


async def _prompt(request: web.Request, values: dict[str, Any], product_id: str) -> dict[str, Any]:
    """The prompt an ingested answer answered: a tracked one of the product (its current version),
    or only the text sent."""
    if values["prompt_id"] is None:
        return {"prompt_id": None, "prompt_version": None, "prompt_text": values["prompt"], "topic_id": None}
    try:
        prompt = await request.app[PERSONAS].prompt(caller_of(request), values["prompt_id"])
    except NotFound:
        prompt = None
    if prompt is None or prompt["productId"] != product_id:
        raise ValidationFailed(details={"promptId": "No tracked prompt of this product."})
    if values["prompt"] is not None and values["prompt"] != prompt["text"]:
        raise ValidationFailed(details={"prompt": "Differs from the tracked prompt's text; send one of the two."})
    return {
        "prompt_id": prompt["id"],
        "prompt_version": prompt["version"],
        "prompt_text": prompt["text"],
        "topic_id": prompt["topicId"],
    }


async def answers_ingest(request: web.Request) -> web.Response:
    """POST /api/v1/answers: store an answer collected elsewhere (201), analysed moments later; the
    same id sent again is the stored answer (200), with another body a 409."""
    values = await load_json(request, ANSWER_INGEST)
    product = caller_of(request).checked_product(values["product_id"])
    organization_id = caller_of(request).org.id
    body_sha256 = hashlib.sha256(dumps(values)).digest()
    async with cursor(request.app[DB_POOL]) as cur:
        existing = await queries.answer_by_external_id(cur, organization_id, values["id"])
    if existing is not None:
        return await _repeat(request, existing, body_sha256)
    usage = values["usage"] or {}
    row = {
        "organization_id": organization_id,
        "product_id": product.id,
        "external_id": values["id"],
        "body_sha256": body_sha256,
        "source": "ingested",
        "run_id": None,
        **(await _prompt(request, values, product.id)),
        "engine": values["engine"],
        "model": values["model"],
        "status": values["status"],
        "text": values["text"],
        "citations": values["citations"],
        "sources": values["sources"],
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "cost_usd": usage.get("cost_usd"),
        "answered_at": values["answered_at"],
    }
    async with transaction(request.app[DB_POOL]) as cur:
        stored = await queries.insert_answer(cur, row)
        if stored is None:  # sent twice at once: the other request stored it first
            existing = await queries.answer_by_external_id(cur, organization_id, values["id"])
    if stored is None:
        assert existing is not None
        return await _repeat(request, existing, body_sha256)
    request.app[ANALYSER].wake()
    return json_response(answer(stored, None), status=201)


async def _repeat(request: web.Request, existing: Row, body_sha256: bytes) -> web.Response:
    if bytes(existing["body_sha256"]) != body_sha256:
        raise Conflict("an answer with this id was sent before with another body")
    async with cursor(request.app[DB_POOL]) as cur:
        analyses = await queries.analyses_of(cur, [str(existing["analysis_id"])] if existing["analysis_id"] else [])
    return json_response(answer(existing, analyses.get(str(existing["analysis_id"]))))


async def answers_list(request: web.Request) -> web.Response:
    """GET /api/v1/answers: the organization's answers, newest first, filtered; each with its analysis."""
    query = load_query(request, ANSWER_LIST_QUERY)
    if "product_id" in query:
        caller_of(request).checked_product(query["product_id"])
    async with cursor(request.app[DB_POOL]) as cur:
        rows, next_cursor = await queries.list_answers(cur, caller_of(request).org.id, query)
        analyses = await queries.analyses_of(cur, [str(row["analysis_id"]) for row in rows if row["analysis_id"]])
    items = [answer(row, analyses.get(str(row["analysis_id"]))) for row in rows]
    return json_response({"items": items, "nextCursor": next_cursor})


async def answers_get(request: web.Request) -> web.Response:
    """GET /api/v1/answers/{answerId}: one answer with its current analysis (null while pending)."""
    answer_id = path_id(request, "answerId", "answer")
    async with cursor(request.app[DB_POOL]) as cur:
        row = await queries.get_answer(cur, caller_of(request).org.id, answer_id)
        if row is None:
            raise NotFound("answer not found")
        analyses = await queries.analyses_of(cur, [str(row["analysis_id"])] if row["analysis_id"] else [])
    return json_response(answer(row, analyses.get(str(row["analysis_id"]))))


async def answers_reanalyse(request: web.Request) -> web.Response:
    """POST /api/v1/answers/reanalyse: queue a product's answers (or some) for a new analysis (202)."""
    values = await load_json(request, REANALYSIS_REQUEST)
    product = caller_of(request).checked_product(values["product_id"])
    async with cursor(request.app[DB_POOL]) as cur:
        queued = await queries.request_reanalysis(cur, caller_of(request).org.id, product.id, values.get("answer_ids"))
    request.app[ANALYSER].wake()
    return json_response({"queued": queued, "analysisVersion": ANALYSIS_VERSION}, status=202)
