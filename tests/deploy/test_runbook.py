"""docs/operations.md's commands as on-call types them: its SQL run as written against a
database, each `kubectl` command naming objects the manifests make (and a restart of "every
part" leaving PgBouncer alone), each `python -m` command answering. The commands run inside a
pod are also run in real containers by tests/deploy/test_rollout.py."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import psycopg2
import pytest

from deploy.cluster import NAMESPACE, PARTS_SELECTOR, PGBOUNCER
from deploy.manifests import render
from gateway.identity.auth.tokens import TokenSigner
from libs.contract.parts import PARTS, ROOT
from tests.deploy.cluster import parsed
from tests.factories import ContentFactory, IdentityFactory

RUNBOOK = (ROOT / "docs" / "operations.md").read_text()
# Inline code, joined where the text wraps it over lines.
SNIPPETS = [" ".join(code.split()) for code in re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", RUNBOOK, flags=re.S))]
SQL = re.findall(r"```sql\n(.*?)```", RUNBOOK, flags=re.S)
KUBECTL = [part for snippet in SNIPPETS for part in re.findall(r"kubectl [^&]+", snippet)]
# What a placeholder in a command stands for.
PLACEHOLDERS = {"<part>": [part.name for part in PARTS], "<upstream>": [part.name for part in PARTS]}


def objects() -> list[dict[str, Any]]:
    return [doc for text in render().values() for doc in parsed(text) if doc and "metadata" in doc]


def expanded(command: str) -> list[str]:
    for placeholder, values in PLACEHOLDERS.items():
        if placeholder in command:
            return [command.replace(placeholder, value) for value in values]
    return [command]


def selected(selector: str, kinds: set[str]) -> set[str]:
    wanted = dict(pair.split("=", 1) for pair in selector.split(","))
    return {
        doc["metadata"]["name"]
        for doc in objects()
        if doc["kind"] in kinds and all(doc["metadata"]["labels"].get(k) == v for k, v in wanted.items())
    }


def test_the_runbook_has_commands_to_check():
    assert len(KUBECTL) > 15 and len(SQL) >= 2


@pytest.mark.parametrize("command", KUBECTL)
def test_every_kubectl_command_names_objects_the_manifests_make(command):
    names = {(doc["kind"], doc["metadata"]["name"]) for doc in objects()}
    short = {"deploy": "Deployment", "deployment": "Deployment", "job": "Job", "hpa": "HorizontalPodAutoscaler"}
    for one in expanded(command):
        assert one.startswith(f"kubectl -n {NAMESPACE} "), one
        for path in re.findall(r" -[fk] (\S+)", one):
            assert (ROOT / path).exists(), one
        resources = re.sub(r" -[fk] \S+", "", one)  # a file's path is not a resource
        for kind, name in re.findall(r"(?<= )(deploy|deployment|job|hpa)/([a-z0-9-]+)(?=[ ,]|$)", resources):
            assert (short[kind], name) in names, one
        if " job migrate" in one:
            assert ("Job", "migrate") in names
        for selector in re.findall(r"-l (\S+)", one):
            kinds = {"Deployment", "Pod"} if "pods" in one else {"Deployment"}
            assert selected(selector, kinds), f"{one}: {selector} selects nothing"


def test_restarting_every_part_restarts_the_parts_and_never_pgbouncer():
    restarts = [command for command in KUBECTL if "rollout restart" in command]
    assert restarts
    for command in restarts:
        assert re.search(r"rollout restart (deployment/[a-z-]+|deployment -l \S+)", command), command
        if " -l " in command:
            assert f"-l {PARTS_SELECTOR}" in command
    assert selected(PARTS_SELECTOR, {"Deployment"}) == {part.name for part in PARTS}
    assert PGBOUNCER not in selected(PARTS_SELECTOR, {"Deployment"})


@pytest.mark.parametrize("module", sorted({m for s in SNIPPETS for m in re.findall(r"python -m ([a-z_.]+)", s)}))
def test_every_python_command_of_the_runbook_answers(module):
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr


async def test_the_runbooks_sql_runs_as_written_and_does_what_it_says(
    database, identity: IdentityFactory, content: ContentFactory
):
    org = await identity.organization()
    product = await identity.product(org)
    await content.document(org, product)
    with psycopg2.connect(database.admin_dsn) as conn, conn.cursor() as cur:
        # Published on 2 January, as the relay leaves them (positions of their own, far above any other).
        cur.execute(
            "UPDATE content.outbox SET published_at = '2026-01-02T00:00:00Z', position = 4000000000 + seq"
            " WHERE organization_id = %s",
            (org.id,),
        )
        cur.execute("SELECT count(*) FROM identity.product_outbox")
        announced_before = cur.fetchone()[0]
    conn.close()
    for statement in SQL:  # as an administrator types it into psql
        done = subprocess.run(
            ["psql", database.admin_dsn, "-v", "ON_ERROR_STOP=1", "-c", statement],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, f"{statement}\n{done.stderr}"
    with psycopg2.connect(database.admin_dsn) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM content.outbox WHERE organization_id = %s AND published_at IS NULL"
            " AND position IS NULL",
            (org.id,),
        )
        assert cur.fetchone()[0] > 0  # the replay put the span's events back in line
        cur.execute("SELECT count(*) FROM identity.product_outbox")
        assert cur.fetchone()[0] > announced_before  # the products announced again
    conn.close()


def test_the_key_rotations_openssl_commands_make_keys_the_gateway_signs_and_verifies_with(tmp_path):
    commands = [snippet for snippet in SNIPPETS if snippet.startswith("openssl ")]
    assert len(commands) >= 4
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", "old.pem"], cwd=tmp_path, check=True)
    printed = {}
    for command in commands:  # as typed, in the directory the operator works in
        done = subprocess.run(
            command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=30, check=False
        )  # noqa: S602
        assert done.returncode == 0, f"{command}: {done.stderr}"
        printed[command] = done.stdout
    # Step 3: the new key signs, the old one's public half (printed) still verifies its tokens.
    old = TokenSigner((tmp_path / "old.pem").read_text(), "https://api.example.com", "aivis")
    token = old.mint("user", "org", ["content:read"])
    old_public = printed["openssl pkey -in old.pem -pubout"]
    new = TokenSigner((tmp_path / "new.pem").read_text(), "https://api.example.com", "aivis", verify_keys=old_public)
    assert new.verify(token)["sub"] == "user"
    assert new.verify(new.mint("user", "org", ["content:read"]))["sub"] == "user"
    # Step 2: the new public half, announced, lets the old signer verify the new key's tokens.
    announced = TokenSigner(
        (tmp_path / "old.pem").read_text(),
        "https://api.example.com",
        "aivis",
        verify_keys=(tmp_path / "new.pub.pem").read_text(),
    )
    assert announced.verify(new.mint("user", "org", ["content:read"]))["sub"] == "user"
    secret = printed["openssl rand -base64 48"].strip()
    assert len(secret) >= 32  # what INTERNAL_TOKEN_SECRET requires
