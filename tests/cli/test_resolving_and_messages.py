"""What a person types: short ids and slugs resolve; bad input is named precisely, rows counted from 1."""

from __future__ import annotations

import uuid

from tests.cli.conftest import Aivis, FakeApi, error, ok

RUNS = "/api/v1/agent-simulation/runs"
PRODUCT = {"id": "0b6c9f7e-1111-4222-8333-444455556666", "slug": "shop", "name": "Shop"}
APP_ID = "5a5a5a5a-1111-4222-8333-444455556666"


def test_runs_get_takes_the_short_id_a_table_shows(run: Aivis, api: FakeApi):
    runs = [
        {"id": f"{prefix}-aaaa-4bbb-8ccc-000000000000", "status": "completed"}
        for prefix in ("1234abcd", "1234ffff", "9999aaaa")
    ]
    api.on("GET", RUNS, ok({"runs": runs[:2], "total": 3}), ok({"runs": runs[2:], "total": 3}))
    api.on("GET", f"{RUNS}/{runs[2]['id']}", ok(runs[2]))
    result = run("runs", "get", "9999aaaa")
    assert result.exit_code == 0, result.output
    assert f"id\t{runs[2]['id']}" in result.stdout
    offsets = [request.url.params["offset"] for request in api.requests if request.url.path == RUNS]
    assert offsets == ["0", "2"]


def test_a_short_id_naming_several_or_none_is_refused(run: Aivis, api: FakeApi):
    runs = [{"id": f"1234{tail}-aaaa-4bbb-8ccc-000000000000"} for tail in ("abcd", "ffff")]
    api.on("GET", RUNS, ok({"runs": runs, "total": 2}))
    ambiguous = run("runs", "get", "1234")
    assert (ambiguous.exit_code, ambiguous.stderr) == (5, "error: '1234' names 2 runs: give more of the id\n")
    missing = run("runs", "get", "777")
    assert (missing.exit_code, missing.stderr) == (4, "error: no run '777'\n")


def test_a_full_run_id_is_asked_for_directly_and_another_organizations_is_not_found(run: Aivis, api: FakeApi):
    run_id = str(uuid.uuid4())
    api.on("GET", f"{RUNS}/{run_id}", error(404, "NOT_FOUND", "run not found"))
    result = run("runs", "get", run_id)
    assert (result.exit_code, result.stderr) == (4, "error: NOT_FOUND: run not found\n")
    assert [request.url.path for request in api.requests] == [f"{RUNS}/{run_id}"]


def test_product_takes_a_slug(run: Aivis, api: FakeApi):
    api.on("GET", "/api/v1/products", ok([PRODUCT]))
    api.on("GET", f"/api/v1/products/{PRODUCT['id']}/personas", ok({"personas": [], "total": 0}))
    result = run("personas", "list", "--product", "shop")
    assert result.exit_code == 0, result.output
    unknown = run("personas", "list", "--product", "nope")
    assert (unknown.exit_code, unknown.stderr) == (4, "error: no product 'nope'\n")


def test_apps_take_a_short_id(run: Aivis, api: FakeApi):
    api.on("GET", "/api/v1/apps", ok([{"id": APP_ID, "slug": "docs", "name": "Docs"}]))
    api.on("GET", f"/api/v1/apps/{APP_ID}/domains", ok([]))
    result = run("domains", "list", "5a5a5a5a", "--json")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().startswith('{\n  "items": []')


def test_unknown_status_values_are_refused_before_any_request(run: Aivis, api: FakeApi):
    for args in (
        ("runs", "list", "--status", "done"),
        ("pages", "list", "--product", PRODUCT["id"], "--status", "x"),
        ("suggestions", "list", "--product", PRODUCT["id"], "--status", "maybe"),
    ):
        result = run(*args)
        assert result.exit_code == 2, args
        assert "Invalid value for '--status'" in result.stderr
    assert api.requests == []


def test_a_csv_without_a_required_column_is_refused_by_naming_it(run: Aivis, api: FakeApi, tmp_path):
    rows = tmp_path / "routes.csv"
    rows.write_text("path,target\n/a,x\n")
    result = run("routes", "import", APP_ID, str(rows))
    assert result.exit_code == 5
    assert f"error: {rows}: the header row lacks targetId (it has path, target)" in result.stderr
    rows.write_text(f"/a,{APP_ID}\n")
    assert "lacks path and targetId" in run("routes", "import", APP_ID, str(rows)).stderr
    assert api.requests == []


def test_rows_the_api_refuses_are_named_by_their_row_in_the_file(run: Aivis, api: FakeApi, tmp_path):
    rows = tmp_path / "routes.csv"
    rows.write_text("path,targetId\n" + "".join(f"/r/{n},{uuid.uuid4()}\n" for n in range(150)))
    preview = f"/api/v1/apps/{APP_ID}/routes/import-preview"
    fine = ok({"routes": [{"action": "create"}] * 100})
    api.on("POST", preview, fine, error(422, "VALIDATION_FAILED", "invalid", {"routes.3.path": "Invalid path."}))
    result = run("routes", "import", APP_ID, str(rows))
    assert result.exit_code == 5
    assert "error: row 104: path: Invalid path." in result.stderr


def test_api_field_errors_count_items_from_one(run: Aivis, api: FakeApi):
    details = {"pages.0.slug": "Invalid slug.", "productId": "Missing."}
    api.on("POST", "/api/v1/site/pages", error(422, "VALIDATION_FAILED", "invalid body", details))
    result = run("pages", "create", "--product", PRODUCT["id"], "--slug", "Bad Slug", "--title", "x")
    assert result.exit_code == 5
    assert result.stderr.splitlines() == [
        "error: VALIDATION_FAILED: invalid body",
        "  page 1: slug: Invalid slug.",
        "  productId: Missing.",
    ]


def test_conflicting_rows_are_counted_in_words(run: Aivis, api: FakeApi, tmp_path):
    rows = tmp_path / "routes.json"
    rows.write_text(f'[{{"path": "/a", "targetId": "{APP_ID}"}}]')
    conflict = {"action": "conflict", "input": {"path": "/a", "targetId": APP_ID}, "issues": ["path_taken"]}
    api.on("POST", f"/api/v1/apps/{APP_ID}/routes/import-preview", ok({"routes": [conflict]}))
    result = run("routes", "import", APP_ID, str(rows))
    assert result.exit_code == 6
    assert "error: 1 row conflicts; nothing was created" in result.stderr
    assert "created 0, skipped 0, conflicts 1" in result.stdout
