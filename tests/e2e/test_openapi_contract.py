"""The served OpenAPI document, and schemathesis against it: no 5xx, every answer fits its schema."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
import uuid

import pytest

from libs.contract.parts import GATEWAY, ROOT
from tests import conftest
from tests.e2e.conftest import LiveStack, admin

# Rules the document cannot state, under which a schema-valid request is refused.
CONFIG = ROOT / "tests/e2e/schemathesis.toml"
# A fresh Idempotency-Key per request, as a client sends (tests/e2e/schemathesis_hooks.py).
HOOKS = {"SCHEMATHESIS_HOOKS": "tests.e2e.schemathesis_hooks", "PYTHONPATH": str(ROOT)}


def fetch_document(live_stack: LiveStack) -> dict:
    with urllib.request.urlopen(f"{live_stack.gateway}/api/v1/openapi.json", timeout=10) as response:
        document: dict = json.loads(response.read())
        return document


def test_the_document_is_openapi_3_1_version_0_1_0(live_stack: LiveStack):
    document = fetch_document(live_stack)
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == "0.1.0"
    runs = document["paths"]["/api/v1/agent-simulation/runs"]["get"]
    assert runs["x-required-scope"] == "simulations:read"
    assert runs["responses"]["401"] == {"$ref": "#/components/responses/Unauthorized"}
    unauthorized = document["components"]["responses"]["Unauthorized"]["content"]["application/json"]
    assert unauthorized["schema"] == {"$ref": "#/components/schemas/ErrorEnvelope"}
    success = runs["responses"]["200"]["content"]["application/json"]["schema"]
    assert success["properties"]["ok"] == {"type": "boolean", "const": True}
    assert set(document["components"]["securitySchemes"]) == {"ApiKey", "Bearer", "Session"}


# The operations in shards that test workers run side by side: each shard the whole resources
# (paths under one first segment) so that schemathesis's links between their operations stay in it.
SHARDS = 3


def shard_patterns(paths: list[str], shards: int = SHARDS) -> list[str]:
    """A path regex per shard: resources dealt out largest first to the shard with fewest operations."""
    resources: dict[str, int] = {}
    for path in paths:
        resource = path.removeprefix("/api/v1/").split("/", 1)[0]
        resources[resource] = resources.get(resource, 0) + 1
    dealt: list[list[str]] = [[] for _ in range(shards)]
    sizes = [0] * shards
    for resource, count in sorted(resources.items(), key=lambda item: (-item[1], item[0])):
        smallest = sizes.index(min(sizes))
        dealt[smallest].append(re.escape(resource))
        sizes[smallest] += count
    return [f"^/api/v1/({'|'.join(names)})(/|$)" for names in dealt]


def test_every_operation_is_in_one_shard(live_stack: LiveStack):
    paths = list(fetch_document(live_stack)["paths"])
    patterns = shard_patterns(paths)
    assert all(sum(bool(re.match(pattern, path)) for pattern in patterns) == 1 for path in paths)


@pytest.mark.long(seconds=150)
@pytest.mark.parametrize("shard", range(SHARDS))
def test_schemathesis_finds_no_contract_violation(
    live_stack: LiveStack, database: conftest.TestDatabase, tmp_path, shard: int
):
    """Every phase of schemathesis against the served document, with a valid key: no 5xx, every
    response of the declared status, content type and schema (each an envelope). Its key is of an
    organization of its own: the runs, apps and pages it creates are no other test's."""
    pattern = shard_patterns(list(fetch_document(live_stack)["paths"]))[shard]
    environ = {**live_stack.environ, "DATABASE_URL": database.dsn(GATEWAY)}
    slug = f"contract-{uuid.uuid4().hex[:8]}"
    admin(environ, "create-org", "--slug", slug, "--name", "Contract")
    key = admin(environ, "create-key", "--org", slug, "--name", "schemathesis", "--scopes", "all")["key"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "--config-file",
            str(CONFIG),
            "run",
            f"{live_stack.gateway}/api/v1/openapi.json",
            "--header",
            f"x-api-key: {key}",
            "--checks",
            "all",
            "--include-path-regex",
            pattern,
            "--max-examples",
            "60",
            "--workers",
            "1",
            "--seed",
            "20261122",
            "--suppress-health-check",
            "all",
            "--report",
            "junit",
            "--report-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **HOOKS},
        cwd=tmp_path,  # its failure cache stays out of the tree
    )
    failures = done.stdout.find("FAILURES")  # the failures first: the warnings after them are long
    assert done.returncode == 0, done.stdout[max(failures, 0) :][:8000] + done.stderr[-2000:]
