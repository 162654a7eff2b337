"""Signing in with the device flow, signing out, and what the credential in use is."""

from __future__ import annotations

import socket
import time
import webbrowser
from typing import Any

import click

from aivis import config
from aivis.api import (
    CLIENT_ID,
    OAUTH_DEVICE_CODE,
    OAUTH_REVOKE,
    OAUTH_TOKEN,
    READY,
    Api,
    Endpoint,
    oauth_error,
    tokens_profile,
)
from aivis.context import Context, pass_context
from aivis.errors import EXIT_AUTH, EXIT_SERVER, CliError
from aivis.output import json_option, print_json

CREDENTIAL = Endpoint("GET", "/api/v1/credential")
DEVICE_NAME_LENGTH = 100  # the most the server keeps


@click.command()
@click.option("--base-url", "login_base_url", help="The API's base URL to sign in to; kept in the profile.")
@click.option("--open", "open_browser", is_flag=True, help="Also open the sign-in page in a browser.")
@click.option("--scope", help="Space-separated scopes to ask for (default: all; your role decides what is granted).")
@pass_context
def login(context: Context, login_base_url: str | None, open_browser: bool, scope: str | None) -> None:
    """Sign in through the browser with a one-time code (OAuth device flow)."""
    api = context.api(login_base_url)
    form = {"client_id": CLIENT_ID, "device_name": device_name(context.profile), **({"scope": scope} if scope else {})}
    status, started = api.oauth(OAUTH_DEVICE_CODE, **form)
    if status != 200:
        raise oauth_error(status, started)
    click.echo(f"To sign in, open {started['verification_uri']}")
    click.echo(f"and enter the code {started['user_code']}")
    click.echo(f"(or open {started['verification_uri_complete']})")
    if open_browser:
        webbrowser.open(started["verification_uri_complete"])
    click.echo("Waiting for approval...", err=True)
    body = wait_for_approval(api, started)
    previous = config.load_profile(context.profile)
    config.save_profile(context.profile, tokens_profile(api.base_url, body))
    user, organization = body["user"], body["organization"]
    click.echo(f"Signed in as {user['email']} to {organization['name']} ({organization['slug']}).")
    if previous is not None:
        end_previous_sign_in(context, previous)


def device_name(profile: str) -> str:
    """How the Security page names this sign-in: the machine and the profile."""
    return f"aivis on {socket.gethostname() or 'this machine'} (profile {profile})"[:DEVICE_NAME_LENGTH]


def end_previous_sign_in(context: Context, previous: dict[str, Any]) -> None:
    """Signing in again on a profile replaces its sign-in: the one it had is revoked on its server."""
    api = context.api(previous["base_url"])
    try:
        revoke(api, previous["refresh_token"], "refresh_token")
    except CliError as failure:
        click.echo(f"warning: could not revoke the profile's previous sign-in: {failure.message}", err=True)
        return
    who = (previous.get("user") or {}).get("email", "unknown")
    click.echo(f"The profile's previous sign-in ({who}) was revoked.", err=True)


def wait_for_approval(api: Api, started: dict[str, Any]) -> dict[str, Any]:
    """Poll the token endpoint no faster than the server asks, until a decision or expiry."""
    interval = int(started["interval"])
    deadline = time.monotonic() + int(started["expires_in"])
    while time.monotonic() < deadline:
        time.sleep(interval)
        status, body = api.oauth(
            OAUTH_TOKEN,
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
    """Sign out: revoke the access token and the sign-in on the server, and forget them here."""
    profile = config.load_profile(context.profile)
    if profile is None:
        click.echo(f"Not signed in (profile {context.profile!r}).")
        return
    api = context.api(profile["base_url"])
    config.delete_profile(context.profile)
    failures: list[CliError] = []
    for token, hint in ((profile["access_token"], "access_token"), (profile["refresh_token"], "refresh_token")):
        try:
            revoke(api, token, hint)
        except CliError as failure:  # the other token is still worth revoking
            failures.append(failure)
    if failures:
        first = failures[0]
        raise CliError(f"forgot the sign-in here, but could not revoke it: {first.message}", first.exit_code)
    click.echo(f"Signed out of {profile['base_url']}.")


def revoke(api: Api, token: str, hint: str) -> None:
    """Revoke one token (RFC 7009): an unknown token is 200 too. A server that cannot revoke
    access tokens says `unsupported_token_type`; revoking the refresh token then ends the grant."""
    status, body = api.oauth(OAUTH_REVOKE, client_id=CLIENT_ID, token=token, token_type_hint=hint)
    if status == 200 or (hint == "access_token" and body.get("error") == "unsupported_token_type"):
        return
    raise oauth_error(status, body)


def credential_in_use(context: Context) -> str:
    api = context.api()
    return "api key (AIVIS_API_KEY)" if api.api_key is not None else f"sign-in (profile {context.profile})"


@click.command()
@json_option
@pass_context
def whoami(context: Context, as_json: bool) -> None:
    """Ask the server who the commands act as: the user or API key, the organization, the scopes."""
    api = context.api()
    data = {**api.call(CREDENTIAL), "baseUrl": api.base_url, "credential": credential_in_use(context)}
    if as_json:
        print_json(data)
        return
    organization = data["organization"]
    if data["user"] is not None:
        click.echo(f"{data['user']['email']} in {organization['name']} ({organization['slug']}, {organization['id']})")
    else:
        key = data["key"]
        click.echo(
            f"API key {key['name']!r} ({key['prefix']}…) of {organization['name']} ({organization['slug']}, "
            f"{organization['id']})"
        )
    click.echo(f"scopes: {' '.join(data['scopes']) or 'none'}")
    click.echo(f"at {api.base_url}, with the {data['credential']}")


@click.command()
@json_option
@pass_context
def status(context: Context, as_json: bool) -> None:
    """The server's readiness and the state of the stored credentials."""
    api = context.api()
    try:
        ready = api.status_of(READY) == 200
        reachable = True
    except CliError:
        ready = reachable = False
    data: dict[str, Any] = {"baseUrl": api.base_url, "reachable": reachable, "ready": ready}
    profile = config.load_profile(context.profile)
    data["credential"] = None if api.api_key is None and profile is None else credential_in_use(context)
    if api.api_key is None and profile is not None:
        data["user"] = profile["user"]["email"]
        data["organization"] = profile["organization"]["slug"]
        data["accessTokenExpiresIn"] = max(0, int(profile["expires_at"] - time.time()))
    context.out.record(data, None, as_json)
    if not reachable:
        raise CliError(f"cannot reach {api.base_url}", EXIT_SERVER)


def register(root: click.Group) -> None:
    for command in (login, logout, whoami, status):
        root.add_command(command)
