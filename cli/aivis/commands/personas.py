"""`aivis products`, and the `personas`, `topics` and `suggestions` of a product."""

from __future__ import annotations

import click

from aivis.api import Endpoint
from aivis.confirm import confirm, yes_option
from aivis.context import Context, pass_context
from aivis.inputs import compact, text_or_file
from aivis.output import json_option, plural, print_json, span, when
from aivis.paging import limit_option
from aivis.resolve import PRODUCTS_LIST, product_option

PERSONAS = Endpoint("GET", "/api/v1/products/{productId}/personas")
PERSONAS_CREATE = Endpoint("POST", "/api/v1/products/{productId}/personas")
PERSONA_UPDATE = Endpoint("PUT", "/api/v1/personas/{personaId}")
PERSONA_DELETE = Endpoint("DELETE", "/api/v1/personas/{personaId}")
TOPICS = Endpoint("GET", "/api/v1/products/{productId}/topics")
TOPICS_CREATE = Endpoint("POST", "/api/v1/products/{productId}/topics")
SUGGESTIONS = Endpoint("GET", "/api/v1/prompt-suggestions")
SUGGESTION_REVIEW = Endpoint("PATCH", "/api/v1/prompt-suggestions/{suggestionId}")
SUGGESTIONS_REGENERATE = Endpoint("POST", "/api/v1/prompt-suggestions/regenerate")

PERSONA_FIELDS = ("id", "name", "description", "systemPrompt", "productId", "createdAt", "updatedAt", "deletedAt")
SUGGESTION_STATUSES = ["pending", "accepted", "rejected"]
offset_option = click.option("--offset", type=int, help="Skip this many.")


@click.group()
def products() -> None:
    """Products of the organization."""


@products.command("list")
@json_option
@pass_context
def products_list(context: Context, as_json: bool) -> None:
    """List the organization's products, by name."""
    data = context.api().call(PRODUCTS_LIST)
    context.out.items(data, ("slug", "name", "id"), as_json, total=len(data))


@click.group()
def personas() -> None:
    """Personas of a product."""


@personas.command("list")
@product_option()
@limit_option
@offset_option
@json_option
@pass_context
def personas_list(context: Context, product_id: str, limit: int | None, offset: int | None, as_json: bool) -> None:
    """List a product's active personas."""
    data = context.api().call(PERSONAS, productId=product_id, query=compact(limit=limit, offset=offset))
    context.out.items(
        data["personas"],
        ("id", "name", "description", when("updatedAt")),
        as_json,
        total=data["total"],
        note=span(len(data["personas"]), data["total"], offset),
    )


@personas.command("create")
@product_option()
@click.option("--name", required=True)
@click.option("--description", required=True)
@click.option("--system-prompt", help="Text, or @file.")
@json_option
@pass_context
def personas_create(
    context: Context, product_id: str, name: str, description: str, system_prompt: str | None, as_json: bool
) -> None:
    """Create a persona of a product."""
    body = compact(name=name, description=description, systemPrompt=text_or_file(system_prompt))
    data = context.api().call(PERSONAS_CREATE, productId=product_id, body=body)
    context.out.record(data, PERSONA_FIELDS, as_json)


@personas.command("update")
@click.argument("persona_id")
@click.option("--name")
@click.option("--description")
@click.option("--system-prompt", help="Text, or @file.")
@json_option
@pass_context
def personas_update(
    context: Context,
    persona_id: str,
    name: str | None,
    description: str | None,
    system_prompt: str | None,
    as_json: bool,
) -> None:
    """Change the given fields of a persona."""
    body = compact(name=name, description=description, systemPrompt=text_or_file(system_prompt))
    context.out.record(context.api().call(PERSONA_UPDATE, personaId=persona_id, body=body), PERSONA_FIELDS, as_json)


@personas.command("delete")
@click.argument("persona_id")
@yes_option
@json_option
@pass_context
def personas_delete(context: Context, persona_id: str, yes: bool, as_json: bool) -> None:
    """Delete a persona (its name becomes free)."""
    confirm(context, yes, f"Delete the persona {persona_id}?")
    context.out.record(context.api().call(PERSONA_DELETE, personaId=persona_id), PERSONA_FIELDS, as_json)


@click.group()
def topics() -> None:
    """Topics of a product, which prompt suggestions are made for."""


@topics.command("list")
@product_option()
@limit_option
@offset_option
@json_option
@pass_context
def topics_list(context: Context, product_id: str, limit: int | None, offset: int | None, as_json: bool) -> None:
    """List a product's topics."""
    data = context.api().call(TOPICS, productId=product_id, query=compact(limit=limit, offset=offset))
    context.out.items(
        data["topics"],
        ("id", "name", "description", when("createdAt")),
        as_json,
        total=data["total"],
        note=span(len(data["topics"]), data["total"], offset),
    )


@topics.command("create")
@product_option()
@click.option("--name", required=True)
@click.option("--description")
@json_option
@pass_context
def topics_create(context: Context, product_id: str, name: str, description: str | None, as_json: bool) -> None:
    """Create a topic of a product."""
    body = compact(name=name, description=description)
    data = context.api().call(TOPICS_CREATE, productId=product_id, body=body)
    context.out.record(data, ("id", "name", "description", "productId", "createdAt"), as_json)


@click.group()
def suggestions() -> None:
    """Prompt suggestions of a product."""


@suggestions.command("list")
@product_option()
@click.option("--topic", "topic_id", help="Only this topic's suggestions.")
@click.option("--status", type=click.Choice(SUGGESTION_STATUSES))
@limit_option
@offset_option
@json_option
@pass_context
def suggestions_list(
    context: Context,
    product_id: str,
    topic_id: str | None,
    status: str | None,
    limit: int | None,
    offset: int | None,
    as_json: bool,
) -> None:
    """List a product's prompt suggestions."""
    params = compact(productId=product_id, topicId=topic_id, status=status, limit=limit, offset=offset)
    data = context.api().call(SUGGESTIONS, query=params)
    context.out.items(
        data["suggestions"],
        ("id", "status", "prompt"),
        as_json,
        total=data["total"],
        note=span(len(data["suggestions"]), data["total"], offset),
    )


@suggestions.command("review")
@click.argument("suggestion_id")
@click.argument("status", type=click.Choice(SUGGESTION_STATUSES))
@json_option
@pass_context
def suggestions_review(context: Context, suggestion_id: str, status: str, as_json: bool) -> None:
    """Accept or reject a suggestion (or put it back to pending)."""
    data = context.api().call(SUGGESTION_REVIEW, suggestionId=suggestion_id, body={"status": status})
    context.out.record(data, ("id", "status", "prompt", "topicId", "personaId", "updatedAt"), as_json)


@suggestions.command("regenerate")
@product_option()
@json_option
@pass_context
def suggestions_regenerate(context: Context, product_id: str, as_json: bool) -> None:
    """Replace a product's pending suggestions with new ones, per topic."""
    data = context.api().call(SUGGESTIONS_REGENERATE, body={"productId": product_id})
    if as_json:
        print_json(data)
    else:
        click.echo(f"{plural(data['count'], 'suggestion')} made")


def register(root: click.Group) -> None:
    for group in (products, personas, topics, suggestions):
        root.add_command(group)
