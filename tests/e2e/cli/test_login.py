"""`aivis login`, `whoami`, `status`, automatic refresh and `logout`, through the installed command."""

from __future__ import annotations

import json
import stat
import time
import urllib.error
import urllib.request

import psycopg2

from gateway.identity.auth.api_keys import hash_key
from tests.e2e.cli.conftest import Cli, decide, new_member, read_user_code

EXIT_AUTH = 3


def signed_in(live_stack, database, tmp_path) -> tuple[Cli, str]:
    """A member signed in through the device flow; returns the command and the member's email."""
    cli = Cli(live_stack, tmp_path / "config")
    member = new_member(live_stack, database)
    process = cli.login()
    code = read_user_code(process)
    decide(database, code, member, live_stack.organization_id, approve=True)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert f"Signed in as {member.email}" in stdout
    return cli, member.email


def grant_state(database, refresh_token: str) -> str | None:
    with psycopg2.connect(database.admin_dsn) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT g.revoked_reason FROM identity.refresh_tokens t JOIN identity.oauth_grants g"
            " ON g.id = t.grant_id WHERE t.token_hash = %s",
            (hash_key(refresh_token),),
        )
        return cur.fetchone()[0]


def test_login_prints_the_code_first_and_stores_credentials_privately(live_stack, database, tmp_path):
    cli, email = signed_in(live_stack, database, tmp_path)
    credentials = cli.config_dir / "credentials.json"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    profile = json.loads(credentials.read_text())["profiles"]["default"]
    assert profile["base_url"] == live_stack.gateway
    assert profile["user"]["email"] == email and profile["refresh_token"].startswith("avr_")
    whoami = cli.json("whoami")
    assert whoami["user"]["email"] == email
    assert whoami["organization"]["id"] == live_stack.organization_id
    assert "simulations:read" in whoami["scopes"]
    runs = cli.json("runs", "list")
    assert runs["total"] == 12 and len(runs["items"]) == 12


def test_expired_access_token_is_refreshed_and_rotated(live_stack, database, tmp_path):
    cli, _ = signed_in(live_stack, database, tmp_path)
    credentials = cli.config_dir / "credentials.json"
    stored = json.loads(credentials.read_text())
    before = stored["profiles"]["default"]
    stored["profiles"]["default"]["expires_at"] = 0
    credentials.write_text(json.dumps(stored))
    assert cli.json("runs", "list", "--limit", "1")["total"] == 12
    after = json.loads(credentials.read_text())["profiles"]["default"]
    assert after["refresh_token"] != before["refresh_token"]
    assert after["expires_at"] > 0
    assert grant_state(database, after["refresh_token"]) is None


def status_with_token(live_stack, access_token: str) -> int:
    request = urllib.request.Request(
        live_stack.gateway + "/api/v1/credential", headers={"Authorization": f"Bearer {access_token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as refused:
        return refused.code


def test_logout_revokes_the_sign_in_and_its_access_token(live_stack, database, tmp_path):
    cli, _ = signed_in(live_stack, database, tmp_path)
    profile = json.loads((cli.config_dir / "credentials.json").read_text())["profiles"]["default"]
    assert status_with_token(live_stack, profile["access_token"]) == 200
    assert "Signed out" in cli.ok("logout")
    assert grant_state(database, profile["refresh_token"]) == "revoked"
    # Refused from the gateway's next look at revocations (each second), not only at its expiry.
    deadline = time.monotonic() + 5
    while status_with_token(live_stack, profile["access_token"]) != 401:
        assert time.monotonic() < deadline, "the access token still works after signing out"
        time.sleep(0.1)
    stderr = cli.fails(EXIT_AUTH, "whoami")
    assert "not signed in" in stderr


def test_status_reports_the_server_and_the_sign_in(live_stack, database, tmp_path):
    cli, email = signed_in(live_stack, database, tmp_path)
    status = cli.json("status")
    assert status["reachable"] is True and status["ready"] is True
    assert status["user"] == email
    assert 3500 <= status["accessTokenExpiresIn"] <= 3600
    assert email in cli.ok("status")


def test_denied_login_exits_with_the_auth_code(live_stack, database, tmp_path):
    cli = Cli(live_stack, tmp_path / "config")
    member = new_member(live_stack, database)
    process = cli.login()
    decide(database, read_user_code(process), member, live_stack.organization_id, approve=False)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == EXIT_AUTH
    assert "error: the sign-in was denied" in stderr
    assert not (cli.config_dir / "credentials.json").exists()


def test_api_key_needs_no_login_and_whoami_asks_the_server(cli: Cli):
    whoami = cli.json("whoami")
    assert (whoami["credential"], whoami["kind"], whoami["user"]) == ("api key (AIVIS_API_KEY)", "api_key", None)
    assert cli.api_key.startswith(whoami["key"]["prefix"])
    assert whoami["organization"]["id"] == cli.stack.organization_id
    assert "simulations:read" in whoami["scopes"]
    cli.api_key = "avk_made_up"
    assert cli.fails(EXIT_AUTH, "whoami") == "error: UNAUTHORIZED: invalid api key\n"


def test_whoami_after_the_sign_in_was_revoked_is_an_auth_error(live_stack, database, tmp_path):
    cli, _ = signed_in(live_stack, database, tmp_path)
    credentials = cli.config_dir / "credentials.json"
    stored = json.loads(credentials.read_text())
    profile = stored["profiles"]["default"]
    with psycopg2.connect(database.admin_dsn) as conn, conn.cursor() as cur:
        cur.execute(
            "UPDATE identity.oauth_grants SET revoked_at = now(), revoked_reason = 'revoked' WHERE id ="
            " (SELECT grant_id FROM identity.refresh_tokens WHERE token_hash = %s)",
            (hash_key(profile["refresh_token"]),),
        )
    profile["expires_at"] = 0
    credentials.write_text(json.dumps(stored))
    assert "signed out:" in cli.fails(EXIT_AUTH, "whoami")


def test_without_credentials_commands_exit_with_the_auth_code(live_stack, tmp_path):
    stderr = Cli(live_stack, tmp_path / "config").fails(EXIT_AUTH, "runs", "list")
    assert "not signed in (profile 'default')" in stderr
