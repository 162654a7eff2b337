"""`aivis whoami` asks the server; `aivis logout` revokes both tokens; `--version`, `completion`."""

from __future__ import annotations

import json
import time

import httpx2 as httpx

from tests.cli.conftest import Aivis, FakeApi, error, ok

CREDENTIAL = "/api/v1/credential"
ORGANIZATION = {"id": "0b6c9f7e-1111-4222-8333-444455556666", "slug": "acme", "name": "Acme"}
KEY = {"id": "k1", "name": "deploy", "prefix": "avk_test_ke", "expiresAt": None}
KEY_CREDENTIAL = {
    "kind": "api_key",
    "organization": ORGANIZATION,
    "scopes": ["content:read", "runs:read"],
    "user": None,
    "key": KEY,
}


def sign_in(run: Aivis, profile: str = "default", expires_in: int = 3600, **fields: str) -> None:
    """A stored sign-in, as `aivis login` leaves it."""
    run.config_dir.mkdir(parents=True, exist_ok=True)
    path = run.config_dir / "credentials.json"
    stored = json.loads(path.read_text()) if path.exists() else {"profiles": {}}
    stored["profiles"][profile] = {
        "base_url": "http://api.test",
        "client_id": "aivis-cli",
        "access_token": fields.get("access", "at-1"),
        "refresh_token": fields.get("refresh", "avr_rt-1"),
        "expires_at": int(time.time()) + expires_in,
        "scope": "content:read",
        "user": {"id": "u1", "email": "ada@example.com", "name": "Ada"},
        "organization": ORGANIZATION,
    }
    path.write_text(json.dumps(stored))
    run.api_key = None


def test_whoami_with_an_api_key_shows_the_organization_and_scopes_the_server_names(run: Aivis, api: FakeApi):
    api.on("GET", CREDENTIAL, ok(KEY_CREDENTIAL))
    result = run("whoami")
    assert result.exit_code == 0, result.output
    assert "API key 'deploy' (avk_test_ke…) of Acme (acme," in result.stdout
    assert "scopes: content:read runs:read" in result.stdout
    assert api.requests[0].headers["x-api-key"] == "avk_test_key"
    data = json.loads(run("whoami", "--json").stdout)
    assert (data["organization"], data["scopes"], data["key"]["name"]) == (
        ORGANIZATION,
        KEY_CREDENTIAL["scopes"],
        "deploy",
    )


def test_whoami_with_a_made_up_api_key_is_an_auth_error(run: Aivis, api: FakeApi):
    api.on("GET", CREDENTIAL, error(401, "UNAUTHORIZED", "invalid api key"))
    result = run("whoami")
    assert result.exit_code == 3
    assert result.stderr == "error: UNAUTHORIZED: invalid api key\n"


def test_whoami_against_an_unreachable_server_is_a_server_error(run: Aivis, api: FakeApi):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    api.on("GET", CREDENTIAL, refuse)
    result = run("whoami")
    assert result.exit_code == 7
    assert result.stderr.startswith("error: cannot reach http://api.test")


def test_whoami_with_a_revoked_sign_in_is_an_auth_error_and_forgets_it(run: Aivis, api: FakeApi):
    sign_in(run, expires_in=0)
    refused = {"error": "invalid_grant", "error_description": "the sign-in was revoked"}
    api.on("POST", "/api/v1/oauth/token", httpx.Response(400, json=refused))
    result = run("whoami")
    assert result.exit_code == 3
    assert "signed out: the sign-in was revoked" in result.stderr
    assert json.loads((run.config_dir / "credentials.json").read_text())["profiles"] == {}
    assert api.bodies("GET", CREDENTIAL) == []


def test_whoami_signed_in_shows_the_user_the_server_names(run: Aivis, api: FakeApi):
    sign_in(run)
    user = {"id": "u1", "email": "ada@example.com", "name": "Ada"}
    api.on("GET", CREDENTIAL, ok({**KEY_CREDENTIAL, "kind": "bearer", "user": user, "key": None}))
    result = run("whoami")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ada@example.com in Acme (acme, ")
    assert api.requests[0].headers["authorization"] == "Bearer at-1"


def test_logout_revokes_the_access_token_and_the_refresh_token(run: Aivis, api: FakeApi):
    sign_in(run, access="at-9", refresh="avr_rt-9")
    api.on("POST", "/api/v1/oauth/revoke", httpx.Response(200, json={}))
    result = run("logout")
    assert result.exit_code == 0, result.output
    assert "Signed out of http://api.test." in result.stdout
    forms = [dict(httpx.QueryParams(r.content.decode())) for r in api.requests]
    assert [(f["token"], f["token_type_hint"], f["client_id"]) for f in forms] == [
        ("at-9", "access_token", "aivis-cli"),
        ("avr_rt-9", "refresh_token", "aivis-cli"),
    ]
    assert run("whoami").exit_code == 3


def test_logout_goes_on_when_the_server_cannot_revoke_access_tokens(run: Aivis, api: FakeApi):
    sign_in(run)
    api.on(
        "POST",
        "/api/v1/oauth/revoke",
        httpx.Response(400, json={"error": "unsupported_token_type", "error_description": "no"}),
        httpx.Response(200, json={}),
    )
    result = run("logout")
    assert result.exit_code == 0, result.output
    assert len(api.requests) == 2


def test_logout_that_cannot_revoke_says_so(run: Aivis, api: FakeApi):
    sign_in(run)
    api.on("POST", "/api/v1/oauth/revoke", httpx.Response(503, json={}))
    result = run("logout")
    assert result.exit_code == 7
    assert "forgot the sign-in here, but could not revoke it" in result.stderr
    assert len(api.requests) == 2  # the refresh token was still tried


def test_version(run: Aivis):
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith("aivis, version ")


def test_completion_scripts_for_bash_zsh_and_fish(run: Aivis):
    for shell, marker in (
        ("bash", "complete -o nosort -F"),
        ("zsh", "#compdef aivis"),
        ("fish", "complete --no-files"),
    ):
        result = run("completion", shell)
        assert result.exit_code == 0, result.output
        assert marker in result.stdout and "_AIVIS_COMPLETE" in result.stdout
    assert run("completion", "tcsh").exit_code == 2


def test_profiles_list_and_switch(run: Aivis, api: FakeApi):
    assert run("profiles").stderr == "no profiles: sign in with `aivis login` (or `aivis --profile NAME login`)\n"
    sign_in(run, "default", access="at-default")
    sign_in(run, "work", access="at-work")
    listed = run("profiles", "--json")
    assert [(p["name"], p["current"]) for p in json.loads(listed.stdout)["items"]] == [
        ("default", True),
        ("work", False),
    ]
    result = run("profiles", "use", "work")
    assert (result.exit_code, result.stdout) == (0, "Using the profile 'work'.\n")
    assert run("profiles").stdout.splitlines()[-1].split("\t")[:2] == ["*", "work"]
    api.on(
        "GET",
        CREDENTIAL,
        ok({**KEY_CREDENTIAL, "kind": "bearer", "user": {"id": "u", "email": "a@b.c", "name": ""}, "key": None}),
    )
    assert run("whoami").exit_code == 0
    assert api.requests[-1].headers["authorization"] == "Bearer at-work"
    missing = run("profiles", "use", "nope")
    assert missing.exit_code == 4
    assert "no profile 'nope' (signed-in profiles: default, work)" in missing.stderr
