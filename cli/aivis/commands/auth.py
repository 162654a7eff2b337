"""Signing in with the device flow, signing out, and what the stored sign-in is."""

from __future__ import annotations

import time
import webbrowser
from datetime import UTC, datetime
from typing import Any

import click

from aivis import config
from aivis.api import CLIENT_ID, Api, oauth_error, tokens_profile
from aivis.context import Context, pass_context
from aivis.errors import EXIT_AUTH, EXIT_SERVER, CliError
from aivis.output import json_option, print_json, record


@click.command()
@click.option("--base-url", "login_base_url", help="The API's base URL to sign in to; kept in the profile.")
@click.option("--open", "open_browser", is_flag=True, help="Also open the sign-in page in a browser.")
@click.option("--scope", help="Space-separated scopes to ask for (default: all; your role decides what is granted).")
@pass_context
def login(context: Context, login_base_url: str | None, open_browser: bool, scope: str | None) -> None:
    """Sign in through the browser with a one-time code (OAuth device flow)."""
    base_url = (login_base_url or context.base_url()).rstrip("/")
    api = Api(context.profile, base_url)
    form = {"client_id": CLIENT_ID, **({"scope": scope} if scope else {})}
    status, started = api.oauth("device/code", **form)
    if status != 200:
        raise oauth_error(status, started)
    click.echo(f"To sign in, open {started['verification_uri']}")
    click.echo(f"and enter the code {started['user_code']}")
    click.echo(f"(or open {started['verification_uri_complete']})")
    if open_browser:
        webbrowser.open(started["verification_uri_complete"])
    click.echo("Waiting for approval...", err=True)
    body = wait_for_approval(api, started)
    config.save_profile(context.profile, tokens_profile(base_url, body))
    user, organization = body["user"], body["organization"]
    click.echo(f"Signed in as {user['email']} to {organization['name']} ({organization['slug']}).")


def wait_for_approval(api: Api, started: dict[str, Any]) -> dict[str, Any]:
    """Poll the token endpoint no faster than the server asks, until a decision or expiry."""
    interval = int(started["interval"])
    deadline = time.monotonic() + int(started["expires_in"])
    while time.monotonic() < deadline:
        time.sleep(interval)
        status, body = api.oauth(
            "token",
            grant_type="urn:ietf:params:oauth:grant-type:device_code",
            client_id=CLIENT_ID,
            device_code=started["device_code"],
        )
        if status == 200:
            return body
        error = body.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval += 5
            continue
        if error == "access_denied":
            raise CliError("the sign-in was denied", EXIT_AUTH)
        if error == "expired_token":
            break
        raise oauth_error(status, body)
    raise CliError("the code expired before it was approved; run `aivis login` again", EXIT_AUTH)


@click.command()
@pass_context
def logout(context: Context) -> None:
    """Sign out: revoke the stored sign-in on the server and forget it here."""
    profile = config.load_profile(context.profile)
    if profile is None:
        click.echo(f"Not signed in (profile {context.profile!r}).")
        return
    api = Api(context.profile, profile["base_url"])
    config.delete_profile(context.profile)
    try:
        status, body = api.oauth("revoke", client_id=CLIENT_ID, token=profile["refresh_token"],
                                 token_type_hint="refresh_token")  # fmt: skip
    except CliError as error:
        raise CliError(f"forgot the sign-in here, but could not revoke it: {error.message}", EXIT_SERVER) from None
    if status != 200:
        raise oauth_error(status, body)
    click.echo(f"Signed out of {profile['base_url']}.")


def identity(context: Context) -> dict[str, Any]:
    api = context.api()
    if api.api_key is not None:
        return {"credential": "api key (AIVIS_API_KEY)", "keyPrefix": api.api_key[:12], "baseUrl": api.base_url}
    profile = api.signed_in()
    api.access_token()  # refreshed when due: a sign-in the server has ended shows here
    profile = api.signed_in()
    expires = datetime.fromtimestamp(profile["expires_at"], UTC).isoformat()
    return {
        "credential": f"sign-in (profile {context.profile})",
        "baseUrl": profile["base_url"],
        "user": profile["user"],
        "organization": profile["organization"],
        "scopes": profile["scope"].split(),
        "accessTokenExpiresAt": expires,
    }


@click.command()
@json_option
@pass_context
def whoami(context: Context, as_json: bool) -> None:
    """Who the commands act as, and in which organization."""
    data = identity(context)
    if as_json:
        print_json(data)
    elif "user" in data:
        user, organization = data["user"], data["organization"]
        click.echo(f"{user['email']} in {organization['name']} ({organization['slug']}, {organization['id']})")
        click.echo(f"scopes: {' '.join(data['scopes'])}")
    else:
        click.echo(f"{data['credential']} {data['keyPrefix']}… at {data['baseUrl']}")


@click.command()
@json_option
@pass_context
def status(context: Context, as_json: bool) -> None:
    """The server's readiness and the state of the stored credentials."""
    api = context.api()
    try:
        ready = api.get_raw("/readyz").status_code == 200
        reachable = True
    except CliError:
        ready = reachable = False
    data: dict[str, Any] = {"baseUrl": api.base_url, "reachable": reachable, "ready": ready}
    profile = config.load_profile(context.profile)
    if api.api_key is not None:
        data["credential"] = "api key (AIVIS_API_KEY)"
    elif profile is not None:
        data["credential"] = f"sign-in (profile {context.profile})"
        data["user"] = profile["user"]["email"]
        data["organization"] = profile["organization"]["slug"]
        data["accessTokenExpiresIn"] = max(0, int(profile["expires_at"] - time.time()))
    else:
        data["credential"] = None
    if as_json:
        print_json(data)
    else:
        record(data)
    if not reachable:
        raise CliError(f"cannot reach {api.base_url}", EXIT_SERVER)


def register(root: click.Group) -> None:
    for command in (login, logout, whoami, status):
        root.add_command(command)
