"""Destructive commands ask on a terminal before acting; `--yes` skips the question; scripts
(piped) are never asked."""

from __future__ import annotations

from tests.cli.conftest import Aivis, FakeApi, ok

APP_ID = "5a5a5a5a-1111-4222-8333-444455556666"
ENDPOINT_ID = "e1e1e1e1-1111-4222-8333-444455556666"
ONE_ENDPOINT = f"/api/v1/webhook-endpoints/{ENDPOINT_ID}"
APP = f"/api/v1/apps/{APP_ID}"


def deleted(api: FakeApi) -> list[str]:
    return [request.url.path for request in api.requests if request.method == "DELETE"]


def test_a_no_on_a_terminal_deletes_nothing(run: Aivis, api: FakeApi):
    api.on("DELETE", ONE_ENDPOINT, ok({"id": ENDPOINT_ID}))
    result = run("webhooks", "delete", ENDPOINT_ID, interactive=True, input="n\n")
    assert result.exit_code == 1
    assert f"Delete the webhook endpoint {ENDPOINT_ID}?" in result.stderr
    assert "error: cancelled: nothing was changed" in result.stderr
    assert deleted(api) == []


def test_a_yes_on_a_terminal_deletes(run: Aivis, api: FakeApi):
    api.on("DELETE", APP, ok({"id": APP_ID, "slug": "docs", "name": "Docs", "deletedAt": "2026-11-28T10:00:00Z"}))
    result = run("apps", "delete", APP_ID, interactive=True, input="y\n")
    assert result.exit_code == 0, result.output
    assert "with its domains and routes? [y/N]" in result.stderr
    assert deleted(api) == [APP]


def test_yes_skips_the_question_and_a_script_is_never_asked(run: Aivis, api: FakeApi):
    api.on("DELETE", ONE_ENDPOINT, ok({"id": ENDPOINT_ID}))
    assert run("webhooks", "delete", ENDPOINT_ID, "--yes", interactive=True).exit_code == 0
    assert run("webhooks", "delete", ENDPOINT_ID, "-y", interactive=True).exit_code == 0
    piped = run("webhooks", "delete", ENDPOINT_ID)
    assert piped.exit_code == 0 and "?" not in piped.stderr
    assert deleted(api) == [ONE_ENDPOINT] * 3


def test_every_destructive_command_asks(run: Aivis, api: FakeApi):
    product = "0b0b0b0b-1111-4222-8333-444455556666"
    commands = [
        ("apps", "delete", APP_ID),
        ("apps", "remove-resource", APP_ID, ENDPOINT_ID),
        ("domains", "delete", APP_ID, ENDPOINT_ID),
        ("routes", "delete", APP_ID, ENDPOINT_ID),
        ("webhooks", "delete", ENDPOINT_ID),
        ("pages", "delete", "--product", product, ENDPOINT_ID),
        ("personas", "delete", ENDPOINT_ID),
    ]
    for command in commands:
        result = run(*command, interactive=True, input="\n")
        assert (result.exit_code, "[y/N]" in result.stderr) == (1, True), (command, result.output)
    assert deleted(api) == [] and not [r for r in api.requests if r.method == "POST"]
