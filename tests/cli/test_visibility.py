"""`aivis competitors|prompts|prompt-runs|answers`: the bodies and queries they send, and what they print."""

from __future__ import annotations

from tests.cli.conftest import Aivis, FakeApi, error, ok

PRODUCT_ID = "0b6c9f7e-1111-4222-8333-444455556666"
PROMPT_ID = "1c6c9f7e-1111-4222-8333-444455556666"
RUN_ID = "2d6c9f7e-1111-4222-8333-444455556666"
ANSWER_ID = "3e6c9f7e-1111-4222-8333-444455556666"


def run_of(status: str, done: int) -> dict:
    return {
        "id": RUN_ID,
        "status": status,
        "trigger": "manual",
        "engines": ["perplexity-sonar"],
        "samples": 1,
        "progress": {"total": 2, "done": done, "failed": 0},
        "usage": {"inputTokens": 10, "outputTokens": 20, "costUsd": 0.01},
        "createdAt": "2026-11-28T10:00:00Z",
        "finishedAt": None,
    }


def test_competitors_add_sends_names_and_domains(run: Aivis, api: FakeApi):
    path = f"/api/v1/products/{PRODUCT_ID}/competitors"
    api.on(
        "POST",
        path,
        ok(
            {
                "id": "c1",
                "name": "Globex",
                "aliases": ["Globex Corp"],
                "domains": ["globex.com"],
                "competitorSetVersion": 3,
                "createdAt": "x",
                "updatedAt": "x",
            },
            201,
        ),
    )
    result = run(
        "competitors",
        "add",
        "--product",
        PRODUCT_ID,
        "--name",
        "Globex",
        "--alias",
        "Globex Corp",
        "--domain",
        "globex.com",
    )
    assert result.exit_code == 0, result.output
    assert api.bodies("POST", path) == [{"name": "Globex", "aliases": ["Globex Corp"], "domains": ["globex.com"]}]
    assert "competitorSetVersion\t3" in result.stdout


def test_prompts_create_sends_only_what_was_given(run: Aivis, api: FakeApi):
    path = f"/api/v1/products/{PRODUCT_ID}/prompts"
    api.on("POST", path, ok({"id": PROMPT_ID, "text": "Best CRM?", "status": "active", "version": 1}, 201))
    result = run(
        "prompts",
        "create",
        "--product",
        PRODUCT_ID,
        "Best CRM?",
        "--engine",
        "perplexity-sonar",
        "--cadence",
        "weekly",
        "--tag",
        "crm",
    )
    assert result.exit_code == 0, result.output
    assert api.bodies("POST", path) == [
        {"text": "Best CRM?", "tags": ["crm"], "engines": ["perplexity-sonar"], "cadence": "weekly"}
    ]


def test_prompt_runs_start_waits_for_the_end(run: Aivis, api: FakeApi):
    api.on("POST", "/api/v1/prompt-runs", ok(run_of("queued", 0), 202))
    api.on("GET", f"/api/v1/prompt-runs/{RUN_ID}", ok(run_of("running", 1)), ok(run_of("completed", 2)))
    result = run("prompt-runs", "start", "--product", PRODUCT_ID, "--prompt", PROMPT_ID, "--wait")
    assert result.exit_code == 0, result.output
    assert api.bodies("POST", "/api/v1/prompt-runs") == [{"productId": PRODUCT_ID, "promptIds": [PROMPT_ID]}]
    assert "status\tcompleted" in result.stdout and "progress.done\t2" in result.stdout
    assert "queued: 0 of 2 answers" in result.stderr


def test_an_engine_without_a_key_is_a_validation_exit(run: Aivis, api: FakeApi):
    details = {"engines.0": "Not configured in this deployment: its vendor's key is not set."}
    api.on("POST", "/api/v1/prompt-runs", error(422, "VALIDATION_FAILED", "validation failed", details))
    result = run("prompt-runs", "start", "--product", PRODUCT_ID, "--engine", "openai-search")
    assert result.exit_code == 5
    assert "Not configured in this deployment" in result.stderr


def test_answers_list_filters_and_shows_the_brand_position(run: Aivis, api: FakeApi):
    brand = {"kind": "brand", "position": 2}
    items = [
        {
            "id": ANSWER_ID,
            "engine": "openai-search",
            "prompt": {"text": "Best CRM?"},
            "answeredAt": "x",
            "analysis": {"brands": [{"kind": "competitor", "position": 1}, brand], "citations": []},
        },
        {"id": "a2", "engine": "anthropic-web", "prompt": {"text": "Best CRM?"}, "answeredAt": "x", "analysis": None},
    ]
    api.on("GET", "/api/v1/answers", ok({"items": items, "nextCursor": "next"}))
    result = run(
        "answers",
        "list",
        "--product",
        PRODUCT_ID,
        "--mentioned",
        "--domain",
        "acme.com",
        "--since",
        "2026-11-01T00:00:00Z",
    )
    assert result.exit_code == 0, result.output
    request = api.requests[-1]
    assert dict(request.url.params) == {
        "productId": PRODUCT_ID,
        "brandMentioned": "true",
        "domain": "acme.com",
        "from": "2026-11-01T00:00:00Z",
    }
    assert result.stdout.splitlines() == [
        f"{ANSWER_ID}\topenai-search\t#2\tBest CRM?\tx",
        "a2\tanthropic-web\t…\tBest CRM?\tx",
    ]
    assert "--cursor next" in result.stderr
