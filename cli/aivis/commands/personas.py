"""`aivis products`, and the `personas`, `topics` and `suggestions` of a product."""

from __future__ import annotations

import click

from aivis.context import Context, pass_context
from aivis.inputs import compact, text_or_file
from aivis.output import json_option, show

PERSONA_FIELDS = ("id", "name", "description", "systemPrompt", "productId", "createdAt", "updatedAt", "deletedAt")
product_option = click.option("--product", "product_id", required=True, help="The product's id.")
limit_option = click.option("--limit", type=int, help="At most this many (1-200, default 50).")
offset_option = click.option("--offset", type=int, help="Skip this many.")


def footer(shown: int, total: int, offset: int | None) -> str:
    first = (offset or 0) + 1
    return f"{first}-{first + shown - 1} of {total}" if shown else f"none of {total}"


@click.group()
def products() -> None:
    """Products of the organization."""


@products.command("list")
@json_option
@pass_context
def products_list(context: Context, as_json: bool) -> None:
    """List the organization's products, by name."""
    data = context.api().call("GET", "/api/v1/products")
    show(data, as_json, rows=data, columns=("id", "name", "slug"))


@click.group()
def personas() -> None:
    """Personas of a product."""


@personas.command("list")
@product_option
@limit_option
@offset_option
@json_option
@pass_context
def personas_list(context: Context, product_id: str, limit: int | None, offset: int | None, as_json: bool) -> None:
    """List a product's active personas."""
    data = context.api().call("GET", f"/api/v1/products/{product_id}/personas",
                              params=compact(limit=limit, offset=offset))  # fmt: skip
    show(data, as_json, rows=data["personas"], columns=("id", "name", "description", "updatedAt"),
         footer=footer(len(data["personas"]), data["total"], offset))  # fmt: skip


@personas.command("create")
@product_option
@click.option("--name", required=True)
@click.option("--description", required=True)
@click.option("--system-prompt", help="Text, or @file.")
@json_option
@pass_context
def personas_create(context: Context, product_id: str, name: str, description: str, system_prompt: str | None,
                    as_json: bool) -> None:  # fmt: skip
    """Create a persona of a product."""
    body = compact(name=name, description=description, systemPrompt=text_or_file(system_prompt))
    data = context.api().call("POST", f"/api/v1/products/{product_id}/personas", body=body)
    show(data, as_json, fields=PERSONA_FIELDS)


@personas.command("update")
@click.argument("persona_id")
@click.option("--name")
@click.option("--description")
@click.option("--system-prompt", help="Text, or @file.")
@json_option
@pass_context
def personas_update(context: Context, persona_id: str, name: str | None, description: str | None,
                    system_prompt: str | None, as_json: bool) -> None:  # fmt: skip
    """Change the given fields of a persona."""
    body = compact(name=name, description=description, systemPrompt=text_or_file(system_prompt))
    show(context.api().call("PUT", f"/api/v1/personas/{persona_id}", body=body), as_json, fields=PERSONA_FIELDS)


@personas.command("delete")
@click.argument("persona_id")
@json_option
@pass_context
def personas_delete(context: Context, persona_id: str, as_json: bool) -> None:
    """Delete a persona (its name becomes free)."""
    show(context.api().call("DELETE", f"/api/v1/personas/{persona_id}"), as_json, fields=PERSONA_FIELDS)


@click.group()
def topics() -> None:
    """Topics of a product, which prompt suggestions are made for."""


@topics.command("list")
@product_option
@limit_option
@offset_option
@json_option
@pass_context
def topics_list(context: Context, product_id: str, limit: int | None, offset: int | None, as_json: bool) -> None:
    """List a product's topics."""
    data = context.api().call("GET", f"/api/v1/products/{product_id}/topics",
                              params=compact(limit=limit, offset=offset))  # fmt: skip
    show(data, as_json, rows=data["topics"], columns=("id", "name", "description", "createdAt"),
         footer=footer(len(data["topics"]), data["total"], offset))  # fmt: skip


@topics.command("create")
@product_option
@click.option("--name", required=True)
@click.option("--description")
@json_option
@pass_context
def topics_create(context: Context, product_id: str, name: str, description: str | None, as_json: bool) -> None:
    """Create a topic of a product."""
    body = compact(name=name, description=description)
    data = context.api().call("POST", f"/api/v1/products/{product_id}/topics", body=body)
    show(data, as_json, fields=("id", "name", "description", "productId", "createdAt"))


@click.group()
def suggestions() -> None:
    """Prompt suggestions of a product."""


@suggestions.command("list")
@product_option
@click.option("--topic", "topic_id", help="Only this topic's suggestions.")
@click.option("--status", type=click.Choice(["pending", "accepted", "rejected"]))
@limit_option
@offset_option
@json_option
@pass_context
def suggestions_list(context: Context, product_id: str, topic_id: str | None, status: str | None,
                     limit: int | None, offset: int | None, as_json: bool) -> None:  # fmt: skip
    """List a product's prompt suggestions."""
    params = compact(productId=product_id, topicId=topic_id, status=status, limit=limit, offset=offset)
    data = context.api().call("GET", "/api/v1/prompt-suggestions", params=params)
    show(data, as_json, rows=data["suggestions"], columns=("id", "status", "prompt", "topicId"),
         footer=footer(len(data["suggestions"]), data["total"], offset))  # fmt: skip


@suggestions.command("review")
@click.argument("suggestion_id")
@click.argument("status", type=click.Choice(["accepted", "rejected", "pending"]))
@json_option
@pass_context
def suggestions_review(context: Context, suggestion_id: str, status: str, as_json: bool) -> None:
    """Accept or reject a suggestion (or put it back to pending)."""
    data = context.api().call("PATCH", f"/api/v1/prompt-suggestions/{suggestion_id}", body={"status": status})
    show(data, as_json, fields=("id", "status", "prompt", "topicId", "personaId", "updatedAt"))


@suggestions.command("regenerate")
@product_option
@json_option
@pass_context
def suggestions_regenerate(context: Context, product_id: str, as_json: bool) -> None:
    """Replace a product's pending suggestions with new ones, per topic."""
    data = context.api().call("POST", "/api/v1/prompt-suggestions/regenerate", body={"productId": product_id})
    if as_json:
        show(data, True)
    else:
        click.echo(f"{data['count']} suggestions made")


def register(root: click.Group) -> None:
    for group in (products, personas, topics, suggestions):
        root.add_command(group)
