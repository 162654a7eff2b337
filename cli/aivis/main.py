"""The `aivis` command: sign-in commands and one group of commands per resource."""

from __future__ import annotations

import click

from aivis.commands import (
    analytics,
    apps,
    auth,
    completion,
    content,
    events,
    personas,
    profiles,
    routes,
    runs,
    simulations,
    traffic,
    visibility,
    webhooks_listen,
)
from aivis.config import current_profile
from aivis.context import Context
from aivis.factory import Factory


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="aivis", prog_name="aivis")
@click.option(
    "--profile",
    envvar="AIVIS_PROFILE",
    default=current_profile,
    show_default="the one `aivis profiles use` chose, else default",
    help="Which stored sign-in to use (env AIVIS_PROFILE).",
)
@click.option(
    "--base-url",
    envvar="AIVIS_BASE_URL",
    help="The API's base URL (env AIVIS_BASE_URL); default: the profile's, else http://127.0.0.1:8080.",
)
@click.pass_context
def aivis(ctx: click.Context, profile: str, base_url: str | None) -> None:
    """The command line of the AI visibility API.

    Sign in with `aivis login`, or set AIVIS_API_KEY. Exit codes: 0 success, 1 unexpected,
    2 usage, 3 auth, 4 not found, 5 validation, 6 conflict, 7 server or network,
    8 a domain not verified.
    """
    # A test passes its own factory (transport, terminal) as the root's `obj`.
    ctx.obj = Context(profile, base_url, ctx.obj if isinstance(ctx.obj, Factory) else Factory())


for module in (
    auth,
    profiles,
    completion,
    content,
    apps,
    routes,
    personas,
    runs,
    simulations,
    events,
    traffic,
    visibility,
    analytics,
    webhooks_listen,
):
    module.register(aivis)


def main() -> None:
    aivis(prog_name="aivis")
