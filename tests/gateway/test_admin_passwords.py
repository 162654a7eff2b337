"""The operator's password commands, run as processes, and what the dashboard then accepts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

from gateway import queries
from gateway.identity.auth import key_queries
from libs.common.db import cursor
from libs.contract.parts import GATEWAY, ROOT
from tests.conftest import Stack
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import sign_in


def admin(stack: Stack, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gateway.admin", "--json", *args],
        cwd=ROOT,
        input=stdin,
        env={**os.environ, **stack.part_environ(GATEWAY)},
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_a_user_created_with_a_password_signs_in_and_a_new_one_replaces_it(stack: Stack):
    slug, email = f"acme-{uuid.uuid4().hex[:8]}", f"{uuid.uuid4().hex[:8]}@example.com"
    assert admin(stack, "create-org", "--slug", slug, "--name", "Acme").returncode == 0
    created = admin(stack, "create-user", "--email", email, "--password-stdin", stdin="first password\n")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["canSignIn"] is True and "first password" not in created.stdout
    assert admin(stack, "add-member", "--org", slug, "--user", email, "--role", "owner").returncode == 0
    assert (await sign_in(stack.gateway, email, "first password")).status == 303

    changed = admin(stack, "set-password", "--user", email, stdin="second password\n")
    assert changed.returncode == 0, changed.stderr
    stack.gateway.session.cookie_jar.clear()
    assert (await sign_in(stack.gateway, email, "first password")).status == 401
    assert (await sign_in(stack.gateway, email, "second password")).status == 303


async def test_a_short_password_is_refused_and_nothing_is_stored(stack: Stack, identity: IdentityFactory):
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    refused = admin(stack, "create-user", "--email", email, "--password-stdin", stdin="short\n")
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("error: a password needs at least 10 characters")
    async with cursor(identity.pool) as cur:
        assert await queries.find_user_for_sign_in(cur, email) is None
    assert admin(stack, "set-password", "--user", "nobody@example.com", stdin="long enough password\n").returncode == 2


async def test_the_operators_key_changes_are_in_the_keys_history(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    created = json.loads(admin(stack, "create-key", "--org", org.slug, "--name", "ops", "--scopes", "all").stdout)
    assert admin(stack, "revoke-key", created["prefix"]).returncode == 0
    async with cursor(identity.pool) as cur:
        events = await key_queries.list_key_events(cur, created["id"])
    assert [(event["actor"], event["action"]) for event in events] == [
        ("operator (command line)", "created"),
        ("operator (command line)", "revoked"),
    ]
