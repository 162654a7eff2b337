"""`aivis profiles`: the stored sign-ins, and which one commands use without --profile."""

from __future__ import annotations

from typing import Any

import click

from aivis import config
from aivis.context import Context, pass_context
from aivis.errors import EXIT_NOT_FOUND, CliError
from aivis.output import json_option


def summary(name: str, profile: dict[str, Any], current: str) -> dict[str, Any]:
    return {
        "name": name,
        "current": name == current,
        "baseUrl": profile.get("base_url"),
        "user": (profile.get("user") or {}).get("email"),
        "organization": profile.get("organization"),
    }


@click.group(invoke_without_command=True)
@json_option
@pass_context
@click.pass_context
def profiles(ctx: click.Context, context: Context, as_json: bool) -> None:
    """List the stored sign-ins (the one in use is marked); `aivis profiles use NAME` switches."""
    if ctx.invoked_subcommand is not None:
        return
    current = config.current_profile()
    items = [summary(name, profile, current) for name, profile in sorted(config.profiles().items())]
    rows = [{**item, "current": "*" if item["current"] else ""} for item in items]
    columns = ("current", "name", "user", "organization.slug", "baseUrl")
    note = None if items else "no profiles: sign in with `aivis login` (or `aivis --profile NAME login`)"
    context.out.items(items if as_json else rows, columns, as_json, total=len(items), note=note)


@profiles.command("use")
@click.argument("name")
def profiles_use(name: str) -> None:
    """Use the profile NAME from now on when --profile is not given."""
    if name not in config.profiles():
        known = ", ".join(sorted(config.profiles())) or "none"
        hint = f"sign in with `aivis --profile {name} login`"
        raise CliError(f"no profile {name!r} (signed-in profiles: {known}); {hint}", EXIT_NOT_FOUND)
    config.use_profile(name)
    click.echo(f"Using the profile {name!r}.")


def register(root: click.Group) -> None:
    root.add_command(profiles)
