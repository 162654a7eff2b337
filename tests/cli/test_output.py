"""Tables fit 80 columns on a terminal (short ids, relative times); piped, tab-separated lines;
every list's JSON is `{items, nextCursor?, total?}`; counts read right."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from aivis.output import plural, relative_time
from tests.cli.conftest import Aivis, FakeApi, ok

RUNS = "/api/v1/agent-simulation/runs"


def a_run(number: int, **fields: object) -> dict[str, object]:
    return {
        "id": f"{number:08x}-aaaa-4bbb-8ccc-{number:012x}",
        "status": "completed",
        "passed": True,
        "overallScore": 0.92,
        "task": {"id": "t", "name": "Checkout flow with a very long task name indeed", "category": "web"},
        "environment": {"id": "e", "name": "browser"},
        "createdAt": (datetime.now(UTC) - timedelta(hours=number)).isoformat(),
        **fields,
    }


def test_a_table_on_a_terminal_fits_80_columns_with_short_ids_and_relative_times(run: Aivis, api: FakeApi):
    runs = [a_run(3), a_run(27)]
    api.on("GET", RUNS, ok({"runs": runs, "total": 2}))
    result = run("runs", "list", interactive=True)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].split()[:3] == ["id", "status", "passed"]
    assert lines[1].startswith("00000003 ") and "3 hours ago" in lines[1]
    assert "1 day ago" in lines[2]
    assert lines[-1] == "1-2 of 2 runs"


def test_piped_a_list_is_tab_separated_lines_with_full_values_and_the_note_on_stderr(run: Aivis, api: FakeApi):
    runs = [a_run(1)]
    api.on("GET", RUNS, ok({"runs": runs, "total": 1}))
    result = run("runs", "list")
    assert result.exit_code == 0, result.output
    fields = [runs[0]["id"], "completed", "yes", "0.92", runs[0]["task"]["name"], runs[0]["createdAt"]]
    assert result.stdout.splitlines() == ["\t".join(fields)]
    assert result.stderr == "1-1 of 1 run\n"


def test_every_list_prints_one_json_shape(run: Aivis, api: FakeApi):
    one = a_run(1)
    api.on("GET", RUNS, ok({"runs": [one], "total": 7}))
    assert json.loads(run("runs", "list", "--json").stdout) == {"items": [one], "total": 7}
    app = {"id": "a1", "slug": "docs", "name": "Docs"}
    api.on("GET", "/api/v1/apps", ok([app]))
    assert json.loads(run("apps", "list", "--json").stdout) == {"items": [app], "total": 1}
    candidates = {"candidates": [{"targetId": "d1"}], "candidateCount": 3, "nextCursor": "c2"}
    api.on("GET", "/api/v1/apps/0b6c9f7e-1111-4222-8333-444455556666/route-candidates", ok(candidates))
    listed = json.loads(run("routes", "candidates", "0b6c9f7e-1111-4222-8333-444455556666", "--json").stdout)
    assert listed == {"items": [{"targetId": "d1"}], "nextCursor": "c2", "total": 3}


def test_a_record_on_a_terminal_and_piped(run: Aivis, api: FakeApi):
    one = a_run(5, completedAt=None)
    api.on("GET", f"{RUNS}/{one['id']}", ok(one))
    piped = run("runs", "get", str(one["id"]))
    assert piped.exit_code == 0, piped.output
    assert f"id\t{one['id']}" in piped.stdout.splitlines() and "completedAt\t-" in piped.stdout.splitlines()
    shown = run("runs", "get", str(one["id"]), interactive=True)
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80 and "browser" in shown.stdout


def test_plurals_and_relative_times():
    assert [plural(n, "run") for n in (0, 1, 2)] == ["0 runs", "1 run", "2 runs"]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"
    now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    assert relative_time("2026-11-26T11:59:30Z", now) == "just now"
    assert relative_time("2026-11-26T11:59:00+00:00", now) == "1 minute ago"
    assert relative_time("2026-11-24T12:00:00+00:00", now) == "2 days ago"
    assert relative_time("2026-11-26T14:00:00+00:00", now) == "in 2 hours"
    assert relative_time("not a time", now) == "not a time"


def test_counts_in_messages_agree_with_their_number(run: Aivis, api: FakeApi):
    product = {"id": "0b6c9f7e-1111-4222-8333-444455556666", "slug": "shop", "name": "Shop"}
    api.on("GET", "/api/v1/products", ok([product]))
    api.on("POST", "/api/v1/prompt-suggestions/regenerate", ok({"count": 1, "ids": ["s"]}))
    assert run("suggestions", "regenerate", "--product", "shop").stdout == "1 suggestion made\n"
    api.on("GET", "/api/v1/site/pages", ok({"items": [], "page": 1, "totalPages": 1, "total": 1}))
    assert run("pages", "list", "--product", "shop").stderr == "page 1 of 1, 1 page in all\n"


def test_ids_commands_cannot_take_short_are_shown_whole_and_long_text_gives_way(run: Aivis, api: FakeApi):
    product = "0b6c9f7e-1111-4222-8333-444455556666"
    pages = [
        {
            "id": f"7c7c7c7c-1111-4222-8333-{n:012d}",
            "title": "A title far too long for any terminal " * 3,
            "filePath": "/docs/" + "deep/" * 12,
            "status": "published",
            "updatedAt": datetime.now(UTC).isoformat(),
        }
        for n in range(2)
    ]
    api.on("GET", "/api/v1/site/pages", ok({"items": pages, "page": 1, "totalPages": 1, "total": 2}))
    result = run("pages", "list", "--product", product, interactive=True)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[1].startswith(pages[0]["id"] + " ") and "…" in lines[1] and "published" in lines[1]
