"""What AI engines say about a product: `aivis competitors`, `aivis prompts` (tracked prompts),
`aivis prompt-runs` and `aivis answers`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option, plural, when
from aivis.resolve import product_option

COMPETITORS = Endpoint("GET", "/api/v1/products/{productId}/competitors")
COMPETITORS_CREATE = Endpoint("POST", "/api/v1/products/{productId}/competitors")
COMPETITOR_UPDATE = Endpoint("PATCH", "/api/v1/competitors/{competitorId}")
COMPETITOR_DELETE = Endpoint("DELETE", "/api/v1/competitors/{competitorId}")
PROMPTS = Endpoint("GET", "/api/v1/products/{productId}/prompts")
PROMPTS_CREATE = Endpoint("POST", "/api/v1/products/{productId}/prompts")
PROMPT = Endpoint("GET", "/api/v1/prompts/{promptId}")
PROMPT_UPDATE = Endpoint("PATCH", "/api/v1/prompts/{promptId}")
PROMPT_ARCHIVE = Endpoint("POST", "/api/v1/prompts/{promptId}/archive")
PROMPT_UNARCHIVE = Endpoint("POST", "/api/v1/prompts/{promptId}/unarchive")
RUNS = Endpoint("GET", "/api/v1/prompt-runs")
RUNS_CREATE = Endpoint("POST", "/api/v1/prompt-runs")
RUN = Endpoint("GET", "/api/v1/prompt-runs/{runId}")
RUN_CANCEL = Endpoint("POST", "/api/v1/prompt-runs/{runId}/cancel")
ANSWERS = Endpoint("GET", "/api/v1/answers")
ANSWER = Endpoint("GET", "/api/v1/answers/{answerId}")

COMPETITOR_FIELDS = ("id", "name", "aliases", "domains", "competitorSetVersion", "createdAt", "updatedAt")
PROMPT_FIELDS = (
    "id",
    "text",
    "status",
    "version",
    "cadence",
    "samples",
    "engines",
    "tags",
    "topicId",
    "personaId",
    "createdAt",
    "updatedAt",
)
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
F = TypeVar("F", bound=Callable[..., Any])
limit_option = click.option("--limit", type=int, help="At most this many (1-200, default 50).")
cursor_option = click.option("--cursor", help="The page after the one that printed this cursor.")


def _page_note(count: int, word: str, next_cursor: str | None) -> str:
    return plural(count, word) + (f"; the next page: --cursor {next_cursor}" if next_cursor else "")


# Competitors.


@click.group()
def competitors() -> None:
    """A product's competitors, looked for in AI answers (scopes products:read, products:write)."""


@competitors.command("list")
@product_option()
@limit_option
@cursor_option
@json_option
@pass_context
def competitors_list(context: Context, product_id: str, limit: int | None, cursor: str | None, as_json: bool) -> None:
    """List the product's competitors, newest first."""
    data = context.api().call(COMPETITORS, productId=product_id, query=compact(limit=limit, cursor=cursor))
    context.out.items(
        data["items"],
        ("id", "name", "aliases", "domains"),
        as_json,
        next_cursor=data["nextCursor"],
        note=_page_note(len(data["items"]), "competitor", data["nextCursor"]),
    )


@competitors.command("add")
@product_option()
@click.option("--name", required=True)
@click.option("--alias", "aliases", multiple=True, help="Another name it goes by (repeat).")
@click.option("--domain", "domains", multiple=True, help="A hostname it owns (repeat).")
@json_option
@pass_context
def competitors_add(
    context: Context, product_id: str, name: str, aliases: tuple[str, ...], domains: tuple[str, ...], as_json: bool
) -> None:
    """Add a competitor of the product."""
    body = {"name": name, "aliases": list(aliases), "domains": list(domains)}
    data = context.api().call(COMPETITORS_CREATE, productId=product_id, body=body)
    context.out.record(data, COMPETITOR_FIELDS, as_json)


@competitors.command("update")
@click.argument("competitor_id")
@click.option("--name")
@click.option("--alias", "aliases", multiple=True, help="Another name it goes by (repeat; replaces the list).")
@click.option("--domain", "domains", multiple=True, help="A hostname it owns (repeat; replaces the list).")
@json_option
@pass_context
def competitors_update(
    context: Context,
    competitor_id: str,
    name: str | None,
    aliases: tuple[str, ...],
    domains: tuple[str, ...],
    as_json: bool,
) -> None:
    """Change a competitor's name, aliases or domains."""
    body = compact(name=name, aliases=list(aliases) or None, domains=list(domains) or None)
    data = context.api().call(COMPETITOR_UPDATE, competitorId=competitor_id, body=body)
    context.out.record(data, COMPETITOR_FIELDS, as_json)


@competitors.command("remove")
@click.argument("competitor_id")
@json_option
@pass_context
def competitors_remove(context: Context, competitor_id: str, as_json: bool) -> None:
    """Delete a competitor; its name is free again."""
    data = context.api().call(COMPETITOR_DELETE, competitorId=competitor_id)
    context.out.record(data, COMPETITOR_FIELDS, as_json)


# Prompts.


@click.group()
def prompts() -> None:
    """Prompts a product tracks in AI engines (scopes prompts:read, prompts:write)."""


@prompts.command("list")
@product_option()
@click.option("--status", type=click.Choice(["active", "paused", "archived"]))
@click.option("--tag")
@click.option("--engine")
@limit_option
@cursor_option
@json_option
@pass_context
def prompts_list(
    context: Context,
    product_id: str,
    status: str | None,
    tag: str | None,
    engine: str | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List the product's tracked prompts, newest first."""
    query = compact(status=status, tag=tag, engine=engine, limit=limit, cursor=cursor)
    data = context.api().call(PROMPTS, productId=product_id, query=query)
    context.out.items(
        data["items"],
        ("id", "text", "status", "cadence", "version"),
        as_json,
        next_cursor=data["nextCursor"],
        note=_page_note(len(data["items"]), "prompt", data["nextCursor"]),
    )


def _prompt_options(function: F) -> F:
    for option in reversed(
        (
            click.option("--topic", "topic_id", help="A topic's id."),
            click.option("--persona", "persona_id", help="A persona's id."),
            click.option("--tag", "tags", multiple=True, help="A label (repeat)."),
            click.option("--engine", "engines", multiple=True, help="An engine id (repeat); default: all configured."),
            click.option("--cadence", type=click.Choice(["daily", "weekly", "manual"])),
            click.option("--samples", type=click.IntRange(1, 5), help="Asks per engine at each run."),
        )
    ):
        function = option(function)
    return function


@prompts.command("create")
@product_option()
@click.argument("text")
@_prompt_options
@json_option
@pass_context
def prompts_create(
    context: Context,
    product_id: str,
    text: str,
    topic_id: str | None,
    persona_id: str | None,
    tags: tuple[str, ...],
    engines: tuple[str, ...],
    cadence: str | None,
    samples: int | None,
    as_json: bool,
) -> None:
    """Track a prompt of the product."""
    body = compact(
        text=text,
        topicId=topic_id,
        personaId=persona_id,
        tags=list(tags) or None,
        engines=list(engines) or None,
        cadence=cadence,
        samples=samples,
    )
    context.out.record(context.api().call(PROMPTS_CREATE, productId=product_id, body=body), PROMPT_FIELDS, as_json)


@prompts.command("update")
@click.argument("prompt_id")
@click.option("--text", help="A new text: a new version.")
@_prompt_options
@click.option("--status", type=click.Choice(["active", "paused"]))
@json_option
@pass_context
def prompts_update(
    context: Context,
    prompt_id: str,
    text: str | None,
    topic_id: str | None,
    persona_id: str | None,
    tags: tuple[str, ...],
    engines: tuple[str, ...],
    cadence: str | None,
    samples: int | None,
    status: str | None,
    as_json: bool,
) -> None:
    """Change a tracked prompt."""
    body = compact(
        text=text,
        topicId=topic_id,
        personaId=persona_id,
        tags=list(tags) or None,
        engines=list(engines) or None,
        cadence=cadence,
        samples=samples,
        status=status,
    )
    context.out.record(context.api().call(PROMPT_UPDATE, promptId=prompt_id, body=body), PROMPT_FIELDS, as_json)


@prompts.command("show")
@click.argument("prompt_id")
@json_option
@pass_context
def prompts_show(context: Context, prompt_id: str, as_json: bool) -> None:
    """One tracked prompt."""
    context.out.record(context.api().call(PROMPT, promptId=prompt_id), PROMPT_FIELDS, as_json)


@prompts.command("archive")
@click.argument("prompt_id")
@json_option
@pass_context
def prompts_archive(context: Context, prompt_id: str, as_json: bool) -> None:
    """Archive a prompt: it stops running and its text is free."""
    context.out.record(context.api().call(PROMPT_ARCHIVE, promptId=prompt_id), PROMPT_FIELDS, as_json)


@prompts.command("unarchive")
@click.argument("prompt_id")
@json_option
@pass_context
def prompts_unarchive(context: Context, prompt_id: str, as_json: bool) -> None:
    """Make an archived prompt active again."""
    context.out.record(context.api().call(PROMPT_UNARCHIVE, promptId=prompt_id), PROMPT_FIELDS, as_json)


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
    context.out.items(
        data["items"],
        ("id", "status", "trigger", "progress.done", "progress.total", when("createdAt")),
        as_json,
        next_cursor=data["nextCursor"],
        note=_page_note(len(data["items"]), "run", data["nextCursor"]),
    )


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
        brandMentioned=None if mentioned is None else str(mentioned).lower(),
        competitorId=competitor_id,
        domain=domain,
        limit=limit,
        cursor=cursor,
        **{"from": since, "to": until},
    )
    data = context.api().call(ANSWERS, query=query)
    rows = [{**item, "brand": _brand(item)} for item in data["items"]]
    context.out.items(
        rows,
        ("id", "engine", "brand", "prompt.text", when("answeredAt")),
        as_json,
        next_cursor=data["nextCursor"],
        note=_page_note(len(rows), "answer", data["nextCursor"]),
    )


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


def register(root: click.Group) -> None:
    for group in (competitors, prompts, prompt_runs, answers):
        root.add_command(group)
