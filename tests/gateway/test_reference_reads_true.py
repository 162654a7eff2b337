"""The reference a person reads at /api/v1/openapi.json says true things: examples look like real
values (never a placeholder `"example"`), each field's description is its own (a delivery's
`status` is not a document's), and summaries carry no notes about the contract."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tests.conftest import Client

PLACEHOLDER = re.compile(r"examplex*", re.IGNORECASE)
# Schemas that are, or speak of, a content document: the only ones whose fields may say "the document".
DOCUMENT_SCHEMAS = re.compile(
    r"Page|Document|Content|Search|RouteTarget|RouteCandidate|DomainEntry|DomainsUpdate|PriorityUpdate"
)
BACKTICKED = re.compile(r"`([^`]+)`")


def strings(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from strings(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from strings(value, f"{where}/{index}")
    elif isinstance(node, str):
        yield where, node


async def reference(gateway: Client) -> dict[str, Any]:
    async with gateway.get("/api/v1/openapi.json") as answer:
        assert answer.status == 200
        document: dict[str, Any] = await answer.json()
        return document


async def test_no_example_is_a_placeholder(gateway: Client):
    document = await reference(gateway)
    placeholders = [where for where, text in strings(document) if PLACEHOLDER.fullmatch(text)]
    assert placeholders == []


async def test_no_summary_speaks_of_the_contract(gateway: Client):
    document = await reference(gateway)
    notes = [
        f"{method} {path}: {operation['summary']}"
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if "contract)" in operation.get("summary", "")
    ]
    assert notes == []


async def test_each_field_is_described_as_itself(gateway: Client):
    document = await reference(gateway)
    borrowed = []
    for name, schema in document["components"]["schemas"].items():
        for field, sub in schema.get("properties", {}).items():
            description = sub.get("description", "")
            own = description.split(" One of: ")[0]
            if "the document" in own.lower() and not DOCUMENT_SCHEMAS.search(name):
                borrowed.append(f"{name}.{field}: {description}")
            values = sub.get("enum")
            named = [value for value in BACKTICKED.findall(own) if re.fullmatch(r"[a-z_]+", value)]
            if values and named and not set(named) & set(values):
                borrowed.append(f"{name}.{field}: {description}")
    assert borrowed == []
