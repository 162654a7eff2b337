"""`aivis simulations` through the installed command against the live stack: a task, its
environment, a run waited for, its steps, and the analytics. In an organization of its own: the
runs it makes are no other test's to count."""

from __future__ import annotations

import uuid
from pathlib import Path

from tests import conftest
from tests.e2e.cli.conftest import Cli, gateway_environ
from tests.e2e.conftest import LiveStack, admin
from tests.e2e.test_dashboard_simulations import _published_app


def test_a_task_run_from_the_command_line_passes_and_shows_its_steps(
    live_stack: LiveStack, database: conftest.TestDatabase, tmp_path: Path
):
    environ, slug = gateway_environ(live_stack, database), f"sims-{uuid.uuid4().hex[:8]}"
    organization = admin(environ, "create-org", "--slug", slug, "--name", "Simulations")
    key = admin(environ, "create-key", "--org", slug, "--name", "cli", "--scopes", "all")["key"]
    product = admin(environ, "create-product", "--org", organization["id"], "--name", "Docs", "--slug", slug)
    cli = Cli(live_stack, tmp_path / "config", api_key=key)
    app = _published_app(live_stack, database, key, product["id"])
    task = cli.json(
        "simulations",
        "tasks",
        "create",
        "--name",
        "Team price",
        "--category",
        "pricing",
        "--goal",
        "How much does the Team plan cost?",
        "--app",
        app["id"],
        "--must",
        "must_include=$49",
        "--weigh",
        "page_reached=/pricing",
    )
    assert [criterion["required"] for criterion in task["criteria"]] == [True, False]
    environment = cli.json(
        "simulations", "environments", "create", "--task", task["id"], "--name", "reader", "--seed", "3"
    )
    assert environment["agentConfig"]["seed"] == 3

    runs = cli.json("simulations", "run", environment["id"], "--trials", "2", "--wait")["items"]
    assert [(run["status"], run["passed"], run["metadata"]["seed"]) for run in runs] == [
        ("completed", True, 3),
        ("completed", True, 4),
    ]
    steps = cli.json("simulations", "steps", runs[0]["id"])["items"]
    assert [step["kind"] for step in steps][:5] == ["check", "check", "check", "check", "fetch"]
    assert "judge" in cli.ok("simulations", "steps", runs[0]["id"])
    assert "Team price" in cli.ok("simulations", "analytics", "--task", task["id"])
    assert runs[0]["id"] in cli.ok("runs", "list", "--task", task["id"])  # `aivis runs` shows them too
