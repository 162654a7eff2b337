"""`python -m gateway.admin`, run as the operator runs it: a process with the gateway's role."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from deploy.parts import GATEWAY, ROOT

RUNS = "/api/v1/agent-simulation/runs"


@pytest.fixture
def admin(stack):
    environ = {**os.environ, **stack.part_environ(GATEWAY)}

    def run(*args: str, expect: int = 0) -> dict:
        done = subprocess.run([sys.executable, "-m", "gateway.admin", "--json", *args], cwd=ROOT, env=environ,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == expect, done.stderr
        return json.loads(done.stdout) if expect == 0 else {"error": done.stderr.strip()}

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
    failed = admin("mint-token", "--user", email, "--org", slug, "--scopes", "content:write", expect=1)
    assert "cannot hold: content:write" in failed["error"]


def test_mistakes_are_reported_plainly(admin):
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    admin("create-org", "--slug", slug, "--name", "Acme")
    assert "already exists" in admin("create-org", "--slug", slug, "--name", "Again", expect=1)["error"]
    assert (
        "unknown scopes: nope"
        in admin("create-key", "--org", slug, "--name", "n", "--scopes", "nope", expect=1)["error"]
    )
    assert "no organization 'missing'" in admin("list-keys", "--org", "missing", expect=1)["error"]
    assert "no api key" in admin("revoke-key", str(uuid.uuid4()), expect=1)["error"]


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
