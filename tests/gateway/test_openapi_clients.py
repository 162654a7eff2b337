"""The served OpenAPI document is one that tools consume: it validates, and a client generated
from it (openapi-python-client, offline) has every operation of the document."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from openapi_spec_validator import validate

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


async def served_document(gateway) -> dict:
    response = await gateway.get("/api/v1/openapi.json")
    assert response.status == 200
    document: dict = await response.json()
    return document


def operations(document: dict) -> dict[str, str]:
    """operationId → "METHOD path" of every operation of the document."""
    return {
        operation["operationId"]: f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    }


async def test_the_document_validates_and_defines_its_servers_tags_and_license(gateway):
    document = await served_document(gateway)
    validate(document)
    assert document["servers"] == [{"url": "/", "description": "The host serving this document."}]
    assert document["info"]["license"]["name"]
    defined = {tag["name"] for tag in document["tags"]}
    assert all(tag["description"] for tag in document["tags"])
    untagged = [
        name
        for item in document["paths"].values()
        for method, operation in item.items()
        if method in HTTP_METHODS
        for name in [operation["operationId"]]
        if not operation["tags"] or not set(operation["tags"]) <= defined
    ]
    assert untagged == []


async def test_no_schema_refers_to_itself(gateway):
    """Client generators cannot follow a recursive schema; any JSON value is described flat."""
    schemas = (await served_document(gateway))["components"]["schemas"]
    recursive = [name for name, schema in schemas.items() if f'"#/components/schemas/{name}"' in json.dumps(schema)]
    assert recursive == []


async def test_a_generated_python_client_has_every_operation(gateway, tmp_path: Path):
    document = await served_document(gateway)
    (tmp_path / "openapi.json").write_text(json.dumps(document))
    # No formatting hooks: the generated code is inspected, not shipped.
    (tmp_path / "config.json").write_text(json.dumps({"post_hooks": [], "project_name_override": "client"}))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            "openapi.json",
            "--config",
            "config.json",
            "--meta",
            "none",
            "--output-path",
            "client",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Unable to process schema" not in output, output
    assert "will not be generated" not in output, output
    generated = {
        module.stem
        for module in (tmp_path / "client" / "api").rglob("*.py")
        if "def sync_detailed(" in module.read_text()
    }
    missing = {name: operation for name, operation in operations(document).items() if name not in generated}
    assert missing == {}
    assert len(operations(document)) > 30
