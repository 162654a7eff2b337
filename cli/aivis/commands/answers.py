"""`aivis prompt-runs` (asking the engines the tracked prompts now) and `aivis answers` (what they said, analysed)."""

from __future__ import annotations

import time
from typing import Any

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option, when
from aivis.paging import cursor_option, limit_option, print_page
from aivis.resolve import product_option

RUNS = Endpoint("GET", "/api/v1/prompt-runs")
RUNS_CREATE = Endpoint("POST", "/api/v1/prompt-runs")
RUN = Endpoint("GET", "/api/v1/prompt-runs/{runId}")
RUN_CANCEL = Endpoint("POST", "/api/v1/prompt-runs/{runId}/cancel")
ANSWERS = Endpoint("GET", "/api/v1/answers")
ANSWER = Endpoint("GET", "/api/v1/answers/{answerId}")

RUN_FIELDS = (
    "id",
    "status",
    "trigger",
    "engines",
    "samples",
    "progress.total",
    "progress.done",
    "progress.failed",
    "usage.inputTokens",
    "usage.outputTokens",
    "usage.costUsd",
    "createdAt",
    "finishedAt",
)
ANSWER_FIELDS = ("id", "engine", "model", "status", "prompt.text", "prompt.version", "answeredAt")
ENDED = ("completed", "partial", "failed", "cancelled")


# Prompt runs.


@click.group("prompt-runs")
def prompt_runs() -> None:
    """Prompts asked of the engines (scopes prompts:read, prompts:write)."""


@prompt_runs.command("start")
@product_option()
@click.option("--prompt", "prompt_ids", multiple=True, help="A prompt's id (repeat); default: every active prompt.")
@click.option("--engine", "engines", multiple=True, help="An engine id (repeat); default: each prompt's.")
@click.option("--samples", type=click.IntRange(1, 5))
@click.option("--wait", is_flag=True, help="Wait for the run to end, printing its progress.")
@json_option
@pass_context
def prompt_runs_start(
    context: Context,
    product_id: str,
    prompt_ids: tuple[str, ...],
    engines: tuple[str, ...],
    samples: int | None,
    wait: bool,
    as_json: bool,
) -> None:
    """Ask the engines the product's prompts now."""
    body = compact(
        productId=product_id, promptIds=list(prompt_ids) or None, engines=list(engines) or None, samples=samples
    )
    run = context.api().call(RUNS_CREATE, body=body)
    while wait and run["status"] not in ENDED:
        progress = run["progress"]
        context.out.note(f"{run['status']}: {progress['done']} of {progress['total']} answers")
        time.sleep(1.0)
        run = context.api().call(RUN, runId=run["id"])
    context.out.record(run, RUN_FIELDS, as_json)


@prompt_runs.command("list")
@product_option(required=False, help="Only this product's runs (slug or id).")
@click.option("--status", type=click.Choice(["queued", "running", *ENDED]))
@limit_option
@cursor_option
@json_option
@pass_context
def prompt_runs_list(
    context: Context, product_id: str | None, status: str | None, limit: int | None, cursor: str | None, as_json: bool
) -> None:
    """List prompt runs, newest first."""
    query = compact(productId=product_id, status=status, limit=limit, cursor=cursor)
    data = context.api().call(RUNS, query=query)
    columns = ("id", "status", "trigger", "progress.done", "progress.total", when("createdAt"))
    print_page(context.out, data["items"], columns, as_json, data["nextCursor"], "run")


@prompt_runs.command("show")
@click.argument("run_id")
@json_option
@pass_context
def prompt_runs_show(context: Context, run_id: str, as_json: bool) -> None:
    """One prompt run with its progress, tokens and cost."""
    context.out.record(context.api().call(RUN, runId=run_id), RUN_FIELDS, as_json)


@prompt_runs.command("cancel")
@click.argument("run_id")
@json_option
@pass_context
def prompt_runs_cancel(context: Context, run_id: str, as_json: bool) -> None:
    """Cancel a run: tasks not started are dropped."""
    context.out.record(context.api().call(RUN_CANCEL, runId=run_id), RUN_FIELDS, as_json)


# Answers.


@click.group()
def answers() -> None:
    """Answers of AI engines and what they say about the brand (scope prompts:read)."""


@answers.command("list")
@product_option(required=False, help="Only this product's answers (slug or id).")
@click.option("--prompt", "prompt_id", help="Only answers of this prompt.")
@click.option("--run", "run_id", help="Only answers of this run.")
@click.option("--engine")
@click.option("--mentioned/--not-mentioned", "mentioned", default=None, help="Only answers naming the brand, or not.")
@click.option("--competitor", "competitor_id", help="Only answers naming this competitor (id).")
@click.option("--domain", help="Only answers citing this domain.")
@click.option("--since", help="Only answers at or after this time (ISO 8601, with a zone).")
@click.option("--until", help="Only answers before this time (ISO 8601, with a zone).")
@limit_option
@cursor_option
@json_option
@pass_context
def answers_list(
    context: Context,
    product_id: str | None,
    prompt_id: str | None,
    run_id: str | None,
    engine: str | None,
    mentioned: bool | None,
    competitor_id: str | None,
    domain: str | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List answers, newest first."""
    query = compact(
        productId=product_id,
        promptId=prompt_id,
        runId=run_id,
        engine=engine,
        brandMentioned=mentioned,
        competitorId=competitor_id,
        domain=domain,
        limit=limit,
        cursor=cursor,
        **{"from": since, "to": until},
    )
    data = context.api().call(ANSWERS, query=query)
    rows = [{**item, "brand": _brand(item)} for item in data["items"]]
    columns = ("id", "engine", "brand", "prompt.text", when("answeredAt"))
    print_page(context.out, rows, columns, as_json, data["nextCursor"], "answer")


def _brand(answer: dict[str, Any]) -> str:
    """Where the answer names the product's own brand: `#2` (its position), `-` not at all, `…` not analysed yet."""
    analysis = answer.get("analysis")
    if analysis is None:
        return "…"
    own = [brand for brand in analysis["brands"] if brand["kind"] == "brand"]
    return f"#{own[0]['position']}" if own else "-"


@answers.command("show")
@click.argument("answer_id")
@json_option
@pass_context
def answers_show(context: Context, answer_id: str, as_json: bool) -> None:
    """An answer: its text, then the brands it names and the pages it cites."""
    data = context.api().call(ANSWER, answerId=answer_id)
    if as_json:
        context.out.record(data, None, True)
        return
    context.out.record(data, ANSWER_FIELDS, False)
    click.echo("\n" + data["text"] + "\n")
    analysis = data["analysis"]
    if analysis is None:
        context.out.note("not analysed yet")
        return
    context.out.table(analysis["brands"], ("name", "kind", "position", "listRank", "mentions", "sentiment.label"))
    context.out.table(analysis["citations"], ("url", "classification", "cited"))
