"""`aivis products`, `personas`, `topics`, `suggestions`, `runs` and `search` through the installed command."""

from __future__ import annotations

import socket
import uuid

from tests.e2e.cli.conftest import Cli

EXIT_AUTH, EXIT_NOT_FOUND, EXIT_VALIDATION, EXIT_SERVER = 3, 4, 5, 7


def test_products_list_names_the_organizations_products(cli: Cli, product):
    listed = cli.json("products", "list")["items"]
    assert {"id": product["id"], "name": product["name"], "slug": product["slug"]} in listed
    assert product["slug"] in cli.ok("products", "list")


def test_personas_create_list_update_and_delete(cli: Cli, product):
    persona = cli.json(
        "personas",
        "create",
        "--product",
        product["id"],
        "--name",
        "Buyer",
        "--description",
        "Buys things",
        "--system-prompt",
        "You buy.",
    )
    assert (persona["name"], persona["systemPrompt"]) == ("Buyer", "You buy.")
    listed = cli.json("personas", "list", "--product", product["slug"])
    assert [p["id"] for p in listed["items"]] == [persona["id"]] and listed["total"] == 1
    assert cli.run("personas", "list", "--product", product["id"]).stderr == "1-1 of 1\n"
    updated = cli.json("personas", "update", persona["id"], "--description", "Buys more")
    assert (updated["name"], updated["description"]) == ("Buyer", "Buys more")
    deleted = cli.json("personas", "delete", persona["id"])
    assert deleted["deletedAt"] is not None
    assert cli.json("personas", "list", "--product", product["id"])["total"] == 0


def test_topics_and_suggestions_regenerate_list_and_review(cli: Cli, product):
    topic = cli.json("topics", "create", "--product", product["id"], "--name", "Pricing")
    assert [t["id"] for t in cli.json("topics", "list", "--product", product["id"])["items"]] == [topic["id"]]
    output = cli.ok("suggestions", "regenerate", "--product", product["id"])
    assert output.strip().endswith("suggestions made")
    listed = cli.json("suggestions", "list", "--product", product["id"], "--topic", topic["id"])
    assert listed["total"] > 0 and all(s["status"] == "pending" for s in listed["items"])
    first = listed["items"][0]
    reviewed = cli.json("suggestions", "review", first["id"], "accepted")
    assert reviewed["status"] == "accepted"
    accepted = cli.json("suggestions", "list", "--product", product["id"], "--status", "accepted")
    assert [s["id"] for s in accepted["items"]] == [first["id"]]


def test_runs_list_as_a_table_and_as_json(cli: Cli):
    runs = cli.json("runs", "list", "--limit", "5")
    assert runs["total"] == 12 and len(runs["items"]) == 5
    assert [run["metadata"]["index"] for run in runs["items"]] == [11, 10, 9, 8, 7]
    passed = cli.run("runs", "list", "--passed")
    assert passed.stderr == "1-6 of 6 runs\n" and len(passed.stdout.splitlines()) == 6
    assert cli.ok("runs", "list").splitlines()[0].split("\t")[0] == runs["items"][0]["id"]


def test_runs_get_by_id_and_by_the_short_id(cli: Cli):
    newest = cli.json("runs", "list", "--limit", "1")["items"][0]
    assert cli.json("runs", "get", newest["id"]) == newest
    assert f"id\t{newest['id']}" in cli.ok("runs", "get", newest["id"][:8]).splitlines()
    assert "NOT_FOUND" in cli.fails(EXIT_NOT_FOUND, "runs", "get", str(uuid.uuid4()))
    assert cli.run("runs", "list", "--status", "finished").returncode == 2


def test_search_answers_the_organizations_results(cli: Cli):
    # This stack does not index (SEARCH_INDEXING=off): the answer is the contract's empty shape.
    data = cli.json("search", "how to publish", "--org", cli.stack.organization_id, "-n", "3")
    assert data["ids"] == [[]] and data["included"] == ["documents", "metadatas", "distances", "uris"]
    assert cli.run("search", "how to publish", "--org", cli.stack.organization_id).stderr == "0 results\n"
    assert "NOT_FOUND" in cli.fails(EXIT_NOT_FOUND, "search", "x", "--org", str(uuid.uuid4()))


def test_search_with_an_api_key_needs_the_organization(cli: Cli):
    assert "--org" in cli.fails(EXIT_VALIDATION, "search", "anything")


def test_a_refused_api_key_exits_with_the_auth_code(cli: Cli):
    cli.api_key = "avk_nope"
    assert cli.fails(EXIT_AUTH, "runs", "list") == "error: UNAUTHORIZED: invalid api key\n"


def test_an_unreachable_server_exits_with_the_server_code(cli: Cli):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = cli.run("--base-url", f"http://127.0.0.1:{port}", "runs", "list")
    assert done.returncode == EXIT_SERVER
    assert done.stderr.startswith(f"error: cannot reach http://127.0.0.1:{port}")
