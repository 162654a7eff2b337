"""`python -m services.search.admin reindex`: an organization's index rebuilt from the content service.

No indexer consumes events here, as if they had been lost: only the reindex brings the index
in step.
"""

from __future__ import annotations

import json

from libs.contract.parts import SEARCH
from services.search import admin
from tests.conftest import Stack
from tests.factories import ContentFactory


async def test_reindex_indexes_what_was_missed_and_drops_what_is_gone(
    stack: Stack, tenant, content: ContentFactory, capsys
):
    searcher, product = tenant
    kept = await content.document(
        searcher.org, product, title="Tea", content="Green tea steeps for two minutes.", status="published"
    )
    dropped = await content.document(
        searcher.org, product, title="Teapots", content="Clay teapots keep tea warm.", status="published"
    )
    assert await searcher.ids("tea") == []

    assert await admin.run(["--json", "reindex", "--org", searcher.org.id], stack.part_environ(SEARCH)) == 0
    assert json.loads(capsys.readouterr().out) == {"organizationId": searcher.org.id, "indexed": 2, "removed": 0}
    assert sorted(await searcher.ids("tea")) == sorted([kept["id"], dropped["id"]])

    await content.delete(searcher.org, product, dropped["id"])
    assert await admin.run(["--json", "reindex", "--org", searcher.org.id], stack.part_environ(SEARCH)) == 0
    assert json.loads(capsys.readouterr().out) == {"organizationId": searcher.org.id, "indexed": 1, "removed": 1}
    assert await searcher.ids("tea") == [kept["id"]]


async def test_reindex_refuses_a_malformed_organization_id(capsys):
    import pytest

    with pytest.raises(SystemExit):
        await admin.run(["reindex", "--org", "acme"], {})
    assert "not a UUID" in capsys.readouterr().err
