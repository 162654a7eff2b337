"""`aivis apps`, `aivis domains` and `aivis routes` (import included) through the installed command."""

from __future__ import annotations

import csv
import json
import urllib.request
import uuid

from tests.e2e.cli.conftest import Cli

EXIT_NOT_FOUND, EXIT_VALIDATION, EXIT_CONFLICT = 4, 5, 6


def publish_pages(cli: Cli, product: dict, count: int) -> list[dict]:
    """`count` published pages, made through the API 25 at a time."""
    made: list[dict] = []
    prefix = uuid.uuid4().hex[:6]
    for start in range(0, count, 25):
        pages = [
            {"slug": f"p{prefix}/{index}", "title": f"Page {index}", "status": "published"}
            for index in range(start, min(start + 25, count))
        ]
        request = urllib.request.Request(
            f"{cli.stack.gateway}/api/v1/site/pages",
            method="POST",
            data=json.dumps({"productId": product["id"], "pages": pages}).encode(),
            headers={"x-api-key": cli.stack.api_key, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            made += json.loads(response.read())["data"]["created"]
    return made


def test_apps_create_list_get_update_and_config(cli: Cli, product):
    name = f"Docs {uuid.uuid4().hex[:6]}"
    app = cli.json("apps", "create", "--name", name, "--metadata", '{"team": "docs"}')
    assert app["name"] == name and app["metadata"] == {"team": "docs"} and app["appConfig"]["config"] == {}
    assert app["id"] in [listed["id"] for listed in cli.json("apps", "list")["items"]]
    assert name in cli.ok("apps", "list")
    renamed = cli.json("apps", "update", app["id"], "--name", "Renamed", "--slug", f"renamed-{app['id'][:8]}")
    assert renamed["name"] == "Renamed"
    config = cli.json("apps", "config", app["id"], '{"theme": "dark"}')
    assert config["config"] == {"theme": "dark"}
    added = cli.json("apps", "add-product", app["id"][:8], product["slug"])
    assert added["resourceId"] == product["id"]
    resources = cli.json("apps", "resources", app["id"])["items"]
    assert [(r["resourceId"], r["product"]["name"]) for r in resources] == [(product["id"], product["name"])]
    detail = cli.json("apps", "get", app["id"])
    assert detail["name"] == "Renamed" and detail["appConfig"]["config"] == {"theme": "dark"}
    assert detail["appConfig"]["productId"] == product["id"]


def test_apps_create_twice_with_one_slug_exits_with_the_conflict_code(cli: Cli):
    slug = f"same-{uuid.uuid4().hex[:8]}"
    cli.ok("apps", "create", "--name", "One", "--slug", slug)
    stderr = cli.fails(EXIT_CONFLICT, "apps", "create", "--name", "Two", "--slug", slug)
    assert stderr.startswith("error: CONFLICT: ")


def test_domains_add_list_and_legacy_routing(cli: Cli):
    app = cli.json("apps", "create", "--name", f"Site {uuid.uuid4().hex[:6]}")
    hostname = f"docs-{uuid.uuid4().hex[:8]}.example.com"
    domain = cli.json("domains", "add", app["id"], hostname, "--type", "web")
    assert (domain["domain"], domain["type"], domain["appId"]) == (hostname, "web", app["id"])
    assert [d["domain"] for d in cli.json("domains", "list", app["id"])["items"]] == [hostname]
    assert hostname in cli.ok("domains", "list", app["id"])
    cli.fails(EXIT_VALIDATION, "domains", "add", app["id"], "Not A Host")
    # An app's domain has no legacy routing config: only product-scoped domains do.
    assert "NOT_FOUND" in cli.fails(EXIT_NOT_FOUND, "domains", "routing", domain["id"])


def test_routes_import_in_batches_then_skips_what_exists(cli: Cli, product, tmp_path):
    app = cli.json("apps", "create", "--name", f"Routes {uuid.uuid4().hex[:6]}")
    cli.ok("apps", "add-product", app["id"], product["id"])
    pages = publish_pages(cli, product, 230)
    rows = tmp_path / "routes.csv"
    with rows.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["path", "targetId"])
        writer.writerows([f"/r/{index}", page["id"]] for index, page in enumerate(pages))
    done = cli.run("routes", "import", app["id"], str(rows))
    assert done.returncode == 0, done.stderr
    assert "created 230, skipped 0, conflicts 0" in done.stdout
    assert "Importing" in done.stderr  # the progress bar
    candidates = cli.json("routes", "candidates", app["id"], "--product", product["id"], "--include-routed")
    routed = [c for c in candidates["items"] if c["pathStatus"] == "already_routed"]
    assert len(routed) == 230
    again = cli.json("routes", "import", app["id"], str(rows))
    assert again == {"created": 0, "skipped": 230, "conflicts": []}


def test_routes_import_with_conflicts_creates_nothing_unless_asked(cli: Cli, product, tmp_path):
    app = cli.json("apps", "create", "--name", f"Routes {uuid.uuid4().hex[:6]}")
    cli.ok("apps", "add-product", app["id"], product["id"])
    first, second = publish_pages(cli, product, 2)
    rows = tmp_path / "routes.json"
    rows.write_text(
        json.dumps(
            [
                {"path": "/a", "targetId": first["id"]},
                {"path": "/b", "targetId": second["id"]},
                {"path": "/a", "targetId": second["id"]},
            ]
        )
    )
    done = cli.run("routes", "import", app["id"], str(rows))
    assert done.returncode == EXIT_CONFLICT
    assert "created 0, skipped 0, conflicts 1" in done.stdout
    assert "duplicate_in_request" in done.stdout
    assert "nothing was created" in done.stderr
    assert cli.json("routes", "candidates", app["id"], "--product", product["id"])["total"] == 2
    preview = cli.run("routes", "import", app["id"], str(rows), "--dry-run", "--json")
    assert preview.returncode == EXIT_CONFLICT
    assert json.loads(preview.stdout)["created"] == 2
    done = cli.run("routes", "import", app["id"], str(rows), "--skip-conflicts", "--json")
    assert done.returncode == EXIT_CONFLICT
    summary = json.loads(done.stdout)
    assert (summary["created"], summary["skipped"]) == (2, 0)
    assert [(c["row"], c["path"], c["issues"]) for c in summary["conflicts"]] == [(3, "/a", ["duplicate_in_request"])]
    assert cli.json("routes", "candidates", app["id"], "--product", product["slug"])["total"] == 0


def test_routes_candidates_page_by_cursor(cli: Cli, product):
    app = cli.json("apps", "create", "--name", f"Pages {uuid.uuid4().hex[:6]}")
    cli.ok("apps", "add-product", app["id"], product["id"])
    publish_pages(cli, product, 5)
    whole = cli.json("routes", "candidates", app["id"])
    assert "nextCursor" not in whole
    first = cli.json("routes", "candidates", app["id"], "--limit", "3")
    assert (first["total"], len(first["items"])) == (whole["total"], 3)
    listed = cli.run("routes", "candidates", app["id"], "--limit", "3")
    assert f"--cursor {first['nextCursor']}" in listed.stderr
    rest = cli.json("routes", "candidates", app["id"], "--limit", "1000", "--cursor", first["nextCursor"])
    assert first["items"] + rest["items"] == whole["items"]
    assert "nextCursor" not in rest
    stderr = cli.fails(EXIT_VALIDATION, "routes", "candidates", app["id"], "--cursor", "nonsense")
    assert "cursor" in stderr


def test_routes_update_changes_the_path(cli: Cli, product, tmp_path):
    app = cli.json("apps", "create", "--name", f"Routes {uuid.uuid4().hex[:6]}")
    cli.ok("apps", "add-product", app["id"], product["id"])
    (page,) = publish_pages(cli, product, 1)
    rows = tmp_path / "routes.csv"
    rows.write_text(f"path,targetId\n/old,{page['id']}\n")
    cli.ok("routes", "import", app["id"], str(rows))
    candidates = cli.json("routes", "candidates", app["id"], "--product", product["id"], "--include-routed")
    route_id = candidates["items"][0]["existingRoute"]["id"]
    updated = cli.json("routes", "update", app["id"], route_id, "--path", "/new")
    assert (updated["id"], updated["path"], updated["targetId"]) == (route_id, "/new", page["id"])


def test_routes_import_refuses_a_file_without_required_columns(cli: Cli, tmp_path):
    rows = tmp_path / "routes.csv"
    rows.write_text("path\n/a\n")
    stderr = cli.fails(EXIT_VALIDATION, "routes", "import", str(uuid.uuid4()), str(rows))
    assert "the header row lacks targetId (it has path)" in stderr
    rows.write_text("path,targetId\n/a,\n")
    stderr = cli.fails(EXIT_VALIDATION, "routes", "import", str(uuid.uuid4()), str(rows))
    assert "row 1: targetId is required" in stderr
