"""`aivis simulations`: tasks with their criteria, running an environment and waiting, a run's steps."""

from __future__ import annotations

import json

from tests.cli.conftest import Aivis, FakeApi, ok

BASE = "/api/v1/agent-simulation"
APP_ID = "5a5a5a5a-1111-4222-8333-444455556666"
ENV_ID = "6b6b6b6b-1111-4222-8333-444455556666"
RUN_ID = "7c7c7c7c-1111-4222-8333-444455556666"


def _run(status: str, passed: bool | None = None) -> dict:
    return {
        "id": RUN_ID,
        "status": status,
        "passed": passed,
        "overallScore": 1.0 if passed else None,
        "metadata": {"trial": 1, "answer": "$49 per month" if passed else None},
    }


def test_tasks_create_sends_required_and_weighed_criteria(run: Aivis, api: FakeApi):
    api.on("POST", f"{BASE}/tasks", ok({"id": "t1", "name": "Price"}, 201))
    result = run(
        "simulations",
        "tasks",
        "create",
        "--name",
        "Price",
        "--category",
        "pricing",
        "--goal",
        "How much is Team?",
        "--app",
        APP_ID,
        "--must",
        "must_include=$49",
        "--weigh",
        "page_reached=/pricing",
        "--rerun-on-change",
    )
    assert result.exit_code == 0, result.output
    assert api.bodies("POST", f"{BASE}/tasks") == [
        {
            "name": "Price",
            "category": "pricing",
            "goal": "How much is Team?",
            "appId": APP_ID,
            "rerunOnChange": True,
            "criteria": [
                {"type": "must_include", "value": "$49", "required": True},
                {"type": "page_reached", "value": "/pricing", "required": False},
            ],
        }
    ]


def test_a_criterion_without_a_known_type_is_refused_before_any_request(run: Aivis, api: FakeApi):
    result = run(
        "simulations",
        "tasks",
        "create",
        "--name",
        "n",
        "--category",
        "c",
        "--goal",
        "g",
        "--app",
        APP_ID,
        "--must",
        "contains=$49",
    )
    assert result.exit_code == 5
    assert "TYPE=VALUE" in result.stderr and api.requests == []


def test_run_wait_polls_until_the_run_ends_and_counts_the_passes(run: Aivis, api: FakeApi):
    api.on("POST", f"{BASE}/runs", ok({"runs": [_run("queued")]}, 202))
    api.on("GET", f"{BASE}/runs/{RUN_ID}", ok(_run("running")), ok(_run("completed", True)))
    result = run("simulations", "run", ENV_ID, "--trials", "1", "--wait")
    assert result.exit_code == 0, result.output
    assert result.stdout.split("\t")[:3] == [RUN_ID, "completed", "yes"]
    assert "1 run, 1 passed" in result.stderr
    assert api.bodies("POST", f"{BASE}/runs") == [{"environmentId": ENV_ID, "trials": 1}]


def test_steps_reads_every_page(run: Aivis, api: FakeApi):
    step = {
        "seq": 1,
        "kind": "check",
        "name": "llms_txt",
        "url": "/llms.txt",
        "status": 200,
        "bytes": 10,
        "tokens": 0,
        "ok": True,
        "detail": {},
    }
    pages = [ok({"items": [step], "nextCursor": "c2"}), ok({"items": [{**step, "seq": 2}], "nextCursor": None})]
    api.on("GET", f"{BASE}/runs/{RUN_ID}/steps", *pages)
    result = run("simulations", "steps", RUN_ID, "--json")
    assert result.exit_code == 0, result.output
    assert [item["seq"] for item in json.loads(result.stdout)["items"]] == [1, 2]
    assert [request.url.params.get("cursor") for request in api.requests] == [None, "c2"]
