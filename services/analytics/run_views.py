"""Handlers of prompt runs: create (202, then asked by the runner), read, list and cancel."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import Conflict, NotFound, ValidationFailed
from libs.common.handlers import owned
from libs.common.schemas import load_json, load_query, path_id
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.analytics import run_queries
from services.analytics.planning import engines_for, tasks_of
from services.analytics.schemas import PromptRunCreate, PromptRunListQuery
from services.analytics.settings import AnalyticsSettings
from services.analytics.shapes import PROMPT_RUN
from services.analytics.state import PERSONAS, RUNNER

RUN_CREATE = PromptRunCreate()
RUN_LIST_QUERY = PromptRunListQuery()
NOT_CONFIGURED = "Not configured in this deployment: its vendor's key is not set."


def _chosen(values: dict[str, Any], prompts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The prompts the run asks: those named (each a live prompt of the product), else the active ones."""
    if "prompt_ids" not in values:
        active = [prompt for prompt in prompts if prompt["status"] == "active"]
        if not active:
            raise ValidationFailed(details={"promptIds": "The product has no active prompt: name the prompts to run."})
        return active
    by_id = {prompt["id"]: prompt for prompt in prompts}
    unknown = {
        f"promptIds.{index}": "No prompt of this product that is not archived."
        for index, prompt_id in enumerate(values["prompt_ids"])
        if prompt_id not in by_id
    }
    if unknown:
        raise ValidationFailed(details=unknown)
    return [by_id[prompt_id] for prompt_id in dict.fromkeys(values["prompt_ids"])]


def _plan(values: dict[str, Any], prompts: list[dict[str, Any]], configured: list[str]) -> list[dict[str, Any]]:
    """The run's tasks; 422 naming an engine this deployment cannot call."""
    refused = {
        f"engines.{index}": NOT_CONFIGURED
        for index, engine in enumerate(values.get("engines") or [])
        if engine not in configured
    }
    if refused:
        raise ValidationFailed(details=refused)
    tasks = []
    for prompt in prompts:
        engines = engines_for(prompt, values.get("engines"), configured)
        if not engines:
            raise ValidationFailed(details={"engines": "No engine is configured in this deployment."})
        missing = [engine for engine in engines if engine not in configured]
        if missing:
            raise ValidationFailed(
                details={"engines": f"Prompt {prompt['id']} asks {', '.join(missing)}: {NOT_CONFIGURED}"}
            )
        tasks += tasks_of(prompt, engines, values.get("samples") or prompt["samples"])
    return tasks


async def prompt_runs_create(request: web.Request) -> web.Response:
    """POST /api/v1/prompt-runs: queue a run of the product's prompts (202); the runner asks the engines."""
    values = await load_json(request, RUN_CREATE)
    product = caller_of(request).checked_product(values["product_id"])
    settings: AnalyticsSettings = request.app[SETTINGS]
    configured = [access.engine.id for access in settings.engines if access.configured]
    prompts = _chosen(values, await request.app[PERSONAS].product_prompts(caller_of(request), product.id))
    tasks = _plan(values, prompts, configured)
    samples = values.get("samples") or max(prompt["samples"] for prompt in prompts)
    async with transaction(request.app[DB_POOL]) as cur:
        run = await run_queries.create_run(cur, caller_of(request).org.id, product.id, "manual", tasks, samples)
    request.app[RUNNER].wake()
    return json_response(PROMPT_RUN.of(run), status=202)


async def prompt_runs_list(request: web.Request) -> web.Response:
    """GET /api/v1/prompt-runs: the organization's runs, newest first, by product and status."""
    query = load_query(request, RUN_LIST_QUERY)
    if "product_id" in query:
        caller_of(request).checked_product(query["product_id"])
    async with cursor(request.app[DB_POOL]) as cur:
        rows, next_cursor = await run_queries.list_runs(cur, caller_of(request).org.id, query)
    return json_response({"items": [PROMPT_RUN.of(row) for row in rows], "nextCursor": next_cursor})


async def prompt_runs_get(request: web.Request) -> web.Response:
    """GET /api/v1/prompt-runs/{runId}: one run with its progress."""
    return json_response(PROMPT_RUN.of(await owned(request, "runId", "prompt run", run_queries.get_run)))


async def prompt_runs_cancel(request: web.Request) -> web.Response:
    """POST /api/v1/prompt-runs/{runId}/cancel: stop a run not finished; 409 for a finished one."""
    run_id = path_id(request, "runId", "prompt run")
    organization_id = caller_of(request).org.id
    async with transaction(request.app[DB_POOL]) as cur:
        run = await run_queries.cancel_run(cur, organization_id, run_id)
        if run is None:
            found = await run_queries.get_run(cur, organization_id, run_id)
            if found is None:
                raise NotFound("prompt run not found")
            raise Conflict(f"the run has ended: it is {found['status']}")
    return json_response(PROMPT_RUN.of(run))
