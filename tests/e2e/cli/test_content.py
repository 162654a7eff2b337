"""`aivis pages` and `aivis content` through the installed command, with an API key."""

from __future__ import annotations

import json
import uuid

from tests.e2e.cli.conftest import Cli

EXIT_NOT_FOUND, EXIT_VALIDATION = 4, 5


def create_page(cli: Cli, product: dict, slug: str, title: str = "A page") -> dict:
    data = cli.json(
        "pages",
        "create",
        "--product",
        product["id"],
        "--slug",
        slug,
        "--title",
        title,
        "--content",
        "# Hello\n\nWords.",
        "--status",
        "published",
    )
    assert data["createdCount"] == 1, data
    return data["created"][0]


def test_pages_create_list_update_and_delete(cli: Cli, product):
    slug = f"guides/{uuid.uuid4().hex[:8]}"
    done = cli.run("pages", "create", "--product", product["slug"], "--slug", slug, "--title", "Getting started")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "created 1 page\n" and "Getting started" in done.stdout
    listed = cli.json("pages", "list", "--product", product["id"], "--query", "getting")
    assert [item["filePath"] for item in listed["items"]] == [f"/{slug}"]
    page_id = listed["items"][0]["id"]
    listed_lines = cli.run("pages", "list", "--product", product["id"])
    assert listed_lines.stdout.split("\t")[:2] == [page_id, "Getting started"]
    assert listed_lines.stderr == "page 1 of 1, 1 page in all\n"
    updated = cli.json(
        "pages", "update", "--product", product["id"], "--id", page_id, "--title", "Start here", "--status", "published"
    )
    assert updated["updatedCount"] == 1
    assert cli.json("content", "get", page_id)["title"] == "Start here"
    deleted = cli.json("pages", "delete", "--product", product["id"], page_id)
    assert deleted["deletedCount"] == 1
    assert cli.json("pages", "list", "--product", product["id"])["total"] == 0


def test_pages_create_from_a_file_reports_failures(cli: Cli, product, tmp_path):
    slug = f"dup-{uuid.uuid4().hex[:8]}"
    pages = tmp_path / "pages.json"
    pages.write_text(json.dumps([{"slug": slug, "title": "One"}, {"slug": slug, "title": "Two"}]))
    done = cli.run("pages", "create", "--product", product["id"], "--file", str(pages))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["created 1 page", "failed: 1 page"]


def test_content_get_by_path_priority_and_update(cli: Cli, product):
    slug = f"docs/{uuid.uuid4().hex[:8]}"
    page = create_page(cli, product, slug)
    found = cli.json("content", "by-path", "--product", product["id"], "--path", f"/{slug}")
    assert found["id"] == page["id"]
    assert cli.json("content", "priority", page["id"], "80")["priority"] == 80
    updated = cli.json(
        "content",
        "update",
        page["id"],
        "--meta-title",
        "Meta",
        "--tag",
        "a",
        "--tag",
        "b",
        "--description-for-agent",
        "For agents",
        "--no-index",
    )
    assert (updated["metaTitle"], updated["tags"], updated["noIndex"]) == ("Meta", ["a", "b"], True)
    assert updated["descriptionForAgent"] == "For agents"
    stored = cli.json("content", "get", page["id"])
    assert stored["metaTitle"] == "Meta" and stored["priority"] == 80
    table = cli.ok("content", "get", page["id"])
    assert "Meta" not in table and f"/{slug}" in table  # the table shows the main fields


def test_content_domains_attach_and_choose_the_canonical_one(cli: Cli, product):
    page = create_page(cli, product, f"d-{uuid.uuid4().hex[:8]}")
    app = cli.json("apps", "create", "--name", f"Site {uuid.uuid4().hex[:6]}")
    domain = cli.json("domains", "add", app["id"], f"www-{uuid.uuid4().hex[:8]}.example.com")
    data = cli.json("content", "domains", page["id"], "--attach", domain["id"], "--canonical", domain["id"])
    assert data["domains"] == [{"id": domain["id"], "domain": domain["domain"], "isCanonical": True}]


def test_unknown_document_exits_with_the_not_found_code(cli: Cli):
    stderr = cli.fails(EXIT_NOT_FOUND, "content", "get", str(uuid.uuid4()))
    assert stderr.startswith("error: NOT_FOUND: ")


def test_invalid_input_exits_with_the_validation_code_and_names_the_field(cli: Cli, product):
    stderr = cli.fails(
        EXIT_VALIDATION, "pages", "create", "--product", product["id"], "--slug", "Bad Slug", "--title", "x"
    )
    assert "error: VALIDATION_FAILED: " in stderr
    assert "  page 1: slug:" in stderr
