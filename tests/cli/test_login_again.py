"""`aivis login` names the device after the machine and the profile, and signing in again on a
profile revokes the sign-in the profile had."""

from __future__ import annotations

import json
import socket

import httpx2 as httpx

from tests.cli.conftest import Aivis, FakeApi
from tests.cli.test_whoami_and_sign_out import sign_in

DEVICE_CODE, TOKEN, REVOKE = "/api/v1/oauth/device/code", "/api/v1/oauth/token", "/api/v1/oauth/revoke"
STARTED = {
    "device_code": "dc",
    "user_code": "BCDF-GHJK",
    "interval": 0,
    "expires_in": 60,
    "verification_uri": "http://api.test/device",
    "verification_uri_complete": "http://api.test/device?c",
}
TOKENS = {
    "access_token": "at-new",
    "token_type": "Bearer",
    "expires_in": 3600,
    "refresh_token": "avr_new",
    "scope": "content:read",
    "user": {"id": "u1", "email": "ada@example.com", "name": "Ada"},
    "organization": {"id": "o", "slug": "acme", "name": "Acme"},
}


def forms(api: FakeApi, path: str) -> list[dict[str, str]]:
    return [dict(httpx.QueryParams(r.content.decode())) for r in api.requests if r.url.path == path]


def answer(api: FakeApi) -> None:
    api.on("POST", DEVICE_CODE, httpx.Response(200, json=STARTED))
    api.on("POST", TOKEN, httpx.Response(200, json=TOKENS))
    api.on("POST", REVOKE, httpx.Response(200, json={}))


def test_the_device_is_named_after_the_machine_and_the_profile(run: Aivis, api: FakeApi):
    answer(api)
    run.api_key = None
    result = run("--profile", "work", "login")
    assert result.exit_code == 0, result.output
    assert forms(api, DEVICE_CODE)[0]["device_name"] == f"aivis on {socket.gethostname()} (profile work)"
    assert forms(api, REVOKE) == []  # nothing to replace


def test_signing_in_again_revokes_the_profiles_previous_sign_in(run: Aivis, api: FakeApi):
    sign_in(run, refresh="avr_old")
    sign_in(run, profile="other", refresh="avr_other")
    answer(api)
    result = run("login")
    assert result.exit_code == 0, result.output
    assert [(f["token"], f["token_type_hint"]) for f in forms(api, REVOKE)] == [("avr_old", "refresh_token")]
    assert "The profile's previous sign-in (ada@example.com) was revoked." in result.stderr
    profiles = json.loads((run.config_dir / "credentials.json").read_text())["profiles"]
    assert (profiles["default"]["refresh_token"], profiles["other"]["refresh_token"]) == ("avr_new", "avr_other")


def test_a_previous_sign_in_that_cannot_be_revoked_is_a_warning_not_a_failure(run: Aivis, api: FakeApi):
    sign_in(run, refresh="avr_old")
    answer(api)
    api.on("POST", REVOKE, httpx.Response(503, json={"error": "temporarily_unavailable"}))
    result = run("login")
    assert result.exit_code == 0, result.output
    assert "warning: could not revoke the profile's previous sign-in" in result.stderr
    assert (
        json.loads((run.config_dir / "credentials.json").read_text())["profiles"]["default"]["access_token"] == "at-new"
    )
