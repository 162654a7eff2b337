"""What a person may type for a resource: its full id, the short id a table showed (a prefix
naming one resource), or, for a product, its slug."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import click

from aivis.api import Endpoint
from aivis.context import Context
from aivis.errors import EXIT_NOT_FOUND, EXIT_VALIDATION, CliError
from aivis.output import plural

# The listings a short id or a slug is looked up in.
PRODUCTS_LIST = Endpoint("GET", "/api/v1/products")
APPS_LIST = Endpoint("GET", "/api/v1/apps")
RUNS = Endpoint("GET", "/api/v1/agent-simulation/runs")
RUNS_PAGE = 200  # the most one list call answers

F = TypeVar("F", bound=Callable[..., Any])
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def is_full_id(text: str) -> bool:
    return _UUID.fullmatch(text) is not None


def by_prefix(items: Iterable[dict[str, Any]], prefix: str, what: str) -> str:
    """The id of the one item whose id starts with `prefix`."""
    matches = [str(item["id"]) for item in items if str(item["id"]).startswith(prefix.lower())]
    if not matches:
        raise CliError(f"no {what} {prefix!r}", EXIT_NOT_FOUND)
    if len(matches) > 1:
        raise CliError(f"{prefix!r} names {plural(len(matches), what)}: give more of the id", EXIT_VALIDATION)
    return matches[0]


def resolver(
    resolve: Callable[[Context, str], str],
) -> Callable[[click.Context, click.Parameter, str | None], str | None]:
    """A click callback resolving an option's or argument's value (None stays None)."""

    def callback(ctx: click.Context, _: click.Parameter, value: str | None) -> str | None:
        if value is None or is_full_id(value):
            return value
        context = ctx.find_object(Context)
        assert context is not None  # every command runs under the `aivis` group
        return resolve(context, value)

    return callback


def product(context: Context, value: str) -> str:
    products: list[dict[str, Any]] = context.api().call(PRODUCTS_LIST)
    for item in products:
        if item["slug"] == value:
            return str(item["id"])
    return by_prefix(products, value, "product")


def app(context: Context, value: str) -> str:
    return by_prefix(context.api().call(APPS_LIST), value, "app")


def run(context: Context, value: str) -> str:
    return by_prefix(every_run(context), value, "run")


def every_run(context: Context) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        page = context.api().call(RUNS, query={"limit": RUNS_PAGE, "offset": offset})
        yield from page["runs"]
        offset += len(page["runs"])
        if not page["runs"] or offset >= page["total"]:
            return


def product_option(required: bool = True, help: str = "The product's slug or id.") -> Callable[[F], F]:
    return click.option("--product", "product_id", required=required, callback=resolver(product), help=help)


product_argument = click.argument("product_id", callback=resolver(product))
app_argument = click.argument("app_id", callback=resolver(app))
