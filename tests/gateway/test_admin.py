"""`python -m gateway.admin`, run as the operator runs it: a process with the gateway's role."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from libs.contract.parts import GATEWAY, ROOT

RUNS = "/api/v1/agent-simulation/runs"


@pytest.fixture
def command(stack):
    """Runs `python -m gateway.admin` as a process with the gateway's environment."""
    environ = {**os.environ, **stack.part_environ(GATEWAY)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gateway.admin", *args],
            cwd=ROOT,
            env=environ,
            capture_output=True,
            text=True,
            timeout=60,
        )

    return run


@pytest.fixture
def admin(command):
    def run(*args: str, expect: int = 0) -> dict:
        done = command("--json", *args)
        assert done.returncode == expect, done.stderr
        if expect == 0:
            return json.loads(done.stdout)
        assert "Traceback" not in done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr
        return {"error": done.stderr.strip()}

    return run


def test_an_operator_sets_up_an_organization_and_its_key_works(admin):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    org = admin("create-org", "--slug", slug, "--name", "Acme")
    product = admin("create-product", "--org", slug, "--name", "Widget", "--slug", "widget")
    key = admin("create-key", "--org", slug, "--name", "ci", "--scopes", "simulations:read")
    assert org["slug"] == slug and product["organization_id"] == org["id"]
    assert key["key"].startswith(key["prefix"] + "_") and key["scopes"] == ["simulations:read"]
    listed = admin("list-keys", "--org", slug)["keys"]
    assert [item["prefix"] for item in listed] == [key["prefix"]]
    assert "key" not in listed[0] and "key_hash" not in listed[0]
    assert key["key"] not in json.dumps(listed)


async def test_created_keys_authenticate_and_revoked_ones_do_not(admin, gateway):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    admin("create-org", "--slug", slug, "--name", "Acme")
    key = admin("create-key", "--org", slug, "--name", "ci", "--scopes", "all")
    assert (await gateway.get(RUNS, headers={"x-api-key": key["key"]})).status == 200
    revoked = admin("revoke-key", key["prefix"])
    assert revoked["revoked_at"] is not None


async def test_minted_tokens_carry_the_members_scopes(admin, gateway):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    admin("create-org", "--slug", slug, "--name", "Acme")
    admin("create-user", "--email", email, "--name", "Ada")
    admin("add-member", "--org", slug, "--user", email, "--role", "viewer")
    token = admin("mint-token", "--user", email, "--org", slug)
    assert "content:write" not in token["scopes"] and "simulations:read" in token["scopes"]
    response = await gateway.get(RUNS, headers={"Authorization": f"Bearer {token['token']}"})
    assert response.status == 200


def test_a_token_beyond_the_role_is_refused(admin):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    admin("create-org", "--slug", slug, "--name", "Acme")
    admin("create-user", "--email", email)
    admin("add-member", "--org", slug, "--user", email, "--role", "viewer")
    failed = admin("mint-token", "--user", email, "--org", slug, "--scopes", "content:write", expect=2)
    assert "cannot hold: content:write" in failed["error"]


def test_mistakes_are_reported_plainly(admin):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    admin("create-org", "--slug", slug, "--name", "Acme")
    assert "already exists" in admin("create-org", "--slug", slug, "--name", "Again", expect=2)["error"]
    assert "no organization 'missing'" in admin("list-keys", "--org", "missing", expect=2)["error"]
    assert "no organization 'missing'" in admin("list-products", "--org", "missing", expect=2)["error"]
    assert "no organization 'missing'" in admin("list-users", "--org", "missing", expect=2)["error"]
    assert (
        "no user 'nobody@example.com'"
        in admin("mint-token", "--user", "nobody@example.com", "--org", slug, expect=2)["error"]
    )
    assert (
        "no user"
        in admin("add-member", "--org", slug, "--user", str(uuid.uuid4()), "--role", "viewer", expect=2)["error"]
    )
    assert "no api key" in admin("revoke-key", str(uuid.uuid4()), expect=2)["error"]
    assert "no api key 'avk_Zz000000'" in admin("revoke-key", "avk_Zz000000", expect=2)["error"]


VALID_SCOPES = "valid: all, analytics:read, analytics:write, content:read, content:write, logs:read, products:read,"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create-org", "--slug", "Acme Inc", "--name", "Acme"], "argument --slug: not a slug: 'Acme Inc'"),
        (["create-org", "--slug", "acme-", "--name", "Acme"], "argument --slug: not a slug: 'acme-'"),
        (["create-org", "--slug", "acme", "--name", ""], "argument --name: must be 1 to 200 characters long, got 0"),
        (["create-product", "--org", "acme", "--name", "W", "--slug", "Widget"], "not a slug: 'Widget'"),
        (["list-keys", "--org", "Not A Slug"], "argument --org: not an id or a slug: 'Not A Slug'"),
        (["revoke-key", "123"], "argument key: not a key id or prefix (avk_ and 8 letters or digits): '123'"),
        (["revoke-key", "avk_short"], "not a key id or prefix"),
        (["create-key", "--org", "acme", "--name", "n", "--scopes", "nope"], f"unknown scopes: nope ({VALID_SCOPES}"),
        (["create-key", "--org", "acme", "--name", "n", "--scopes", ""], f"no scopes given ({VALID_SCOPES}"),
        (["create-key", "--org", "acme", "--name", "n", "--scopes", " , "], "no scopes given"),
        (
            ["create-key", "--org", "acme", "--name", "n", "--scopes", "all", "--expires-in-days", "-1"],
            "argument --expires-in-days: must be from 1 to 3650, got -1",
        ),
        (
            ["create-key", "--org", "acme", "--name", "n", "--scopes", "all", "--expires-in-days", "1e9"],
            "argument --expires-in-days: not a whole number: '1e9'",
        ),
        (
            ["mint-token", "--user", "a@example.com", "--org", "acme", "--ttl", "-5"],
            "argument --ttl: must be from 1 to 86400, got -5",
        ),
        (
            ["create-session", "--user", "a@example.com", "--org", "acme", "--max-age", "0"],
            "argument --max-age: must be from 1 to 2592000, got 0",
        ),
        (["mint-token", "--user", "bob", "--org", "acme"], "argument --user: not a user id or email address: 'bob'"),
        (["create-user", "--email", "@example.com"], "argument --email: not an email address: '@example.com'"),
        (["add-member", "--org", "acme", "--user", "a@example.com", "--role", "boss"], "invalid choice: 'boss'"),
        (["list-products"], "the following arguments are required: --org"),
        (["drop-everything"], "invalid choice: 'drop-everything'"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(command, args, message):
    done = command(*args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("python -m gateway.admin") and ": error: " in line
    assert message in line
    assert done.stdout == ""


def test_organizations_products_and_users_are_listed(admin):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    org = admin("create-org", "--slug", slug, "--name", "Acme")
    widget = admin("create-product", "--org", slug, "--name", "Widget", "--slug", "widget")
    gadget = admin("create-product", "--org", org["id"], "--name", "Gadget", "--slug", "gadget")
    user = admin("create-user", "--email", email, "--name", "Ada")
    admin("add-member", "--org", slug, "--user", email, "--role", "admin")
    assert {"id": org["id"], "slug": slug, "name": "Acme", "created_at": org["created_at"]} in admin("list-orgs")[
        "organizations"
    ]
    products = admin("list-products", "--org", slug)["products"]
    assert [(p["id"], p["slug"], p["name"]) for p in products] == [
        (gadget["id"], "gadget", "Gadget"),
        (widget["id"], "widget", "Widget"),
    ]
    assert user["id"] in [listed["id"] for listed in admin("list-users")["users"]]
    [member] = admin("list-users", "--org", slug)["users"]
    assert (member["id"], member["email"], member["name"], member["role"]) == (user["id"], email, "Ada", "admin")


def test_a_deleted_product_leaves_the_list_and_cannot_be_deleted_twice(admin):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    admin("create-org", "--slug", slug, "--name", "Acme")
    widget = admin("create-product", "--org", slug, "--name", "Widget", "--slug", "widget")
    gadget = admin("create-product", "--org", slug, "--name", "Gadget", "--slug", "gadget")
    deleted = admin("delete-product", "--org", slug, "--product", "widget")
    assert (deleted["id"], deleted["deleted_at"] is not None) == (widget["id"], True)
    assert [p["id"] for p in admin("list-products", "--org", slug)["products"]] == [gadget["id"]]
    again = admin("delete-product", "--org", slug, "--product", widget["id"], expect=2)
    assert "no live product" in again["error"]


def test_human_output_is_an_aligned_table_without_none(admin, command):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    admin("create-org", "--slug", slug, "--name", "Acme Corporation")
    admin("create-product", "--org", slug, "--name", "W", "--slug", "w")
    admin("create-product", "--org", slug, "--name", "Gadget Deluxe", "--slug", "gadget-deluxe")
    key = admin("create-key", "--org", slug, "--name", "ci", "--scopes", "content:read,simulations:read")
    done = command("list-products", "--org", slug)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["id", "slug", "name", "created_at"]
    assert [row.split("  ")[0] for row in rows] and len(rows) == 2
    for column in ("slug", "name", "created_at"):
        start = header.index(column)
        assert all(row[start - 2 : start] == "  " and row[start] != " " for row in rows), done.stdout
    listed = command("list-keys", "--org", slug).stdout
    assert "None" not in listed and "null" not in listed
    header, row = listed.splitlines()
    assert row[header.index("scopes") :].startswith("content:read, simulations:read")
    assert row[header.index("expires_at") :].startswith("- ")
    created = command("create-org", "--slug", f"{slug}-2", "--name", "Again").stdout.splitlines()
    assert [line.split()[0] for line in created] == ["id", "slug", "name", "created_at"]
    assert created[1].split(None, 1)[1] == f"{slug}-2"
    assert "None" not in command("revoke-key", key["prefix"]).stdout
    assert command("list-users", "--org", slug).stdout.strip() == "no users"


async def test_an_opened_session_authenticates_as_the_member(admin, gateway):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    admin("create-org", "--slug", slug, "--name", "Acme")
    admin("create-user", "--email", email)
    admin("add-member", "--org", slug, "--user", email, "--role", "member")
    session = admin("create-session", "--user", email, "--org", slug)
    name, _, value = session["cookie"].partition("=")
    response = await gateway.get(RUNS, cookies={name: value})
    assert response.status == 200
