"""What AI engines say about a product: `aivis prompts` (tracked prompts) here, and the commands
of the same concern registered with it: `aivis competitors` (commands/competitors.py),
`aivis prompt-runs` and `aivis answers` (commands/answers.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from aivis.api import Endpoint
from aivis.commands.answers import answers, prompt_runs
from aivis.commands.competitors import competitors
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option
from aivis.paging import cursor_option, limit_option, print_page
from aivis.resolve import product_option

PROMPTS = Endpoint("GET", "/api/v1/products/{productId}/prompts")
PROMPTS_CREATE = Endpoint("POST", "/api/v1/products/{productId}/prompts")
PROMPT = Endpoint("GET", "/api/v1/prompts/{promptId}")
PROMPT_UPDATE = Endpoint("PATCH", "/api/v1/prompts/{promptId}")
PROMPT_ARCHIVE = Endpoint("POST", "/api/v1/prompts/{promptId}/archive")
PROMPT_UNARCHIVE = Endpoint("POST", "/api/v1/prompts/{promptId}/unarchive")
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
F = TypeVar("F", bound=Callable[..., Any])


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
    columns = ("id", "text", "status", "cadence", "version")
    print_page(context.out, data["items"], columns, as_json, data["nextCursor"], "prompt")


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


def register(root: click.Group) -> None:
    for group in (competitors, prompts, prompt_runs, answers):
        root.add_command(group)
