"""Relevance on a labelled set: does search find what people mean?

fixtures/corpus.json: 216 help-centre and marketing pages of four products of one organization
(seven long enough to be several chunks), and 71 queries labelled with the documents that answer
them. 22 queries paraphrase their document with no content word in common with it (checked
word by word when the set was made): only the meaning can find those, and each must be in the
top 5. Over all queries, recall@5 must be at least 0.9.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from services.search.indexer import Indexer
from tests.factories import IdentityFactory
from tests.search.conftest import Searcher

CORPUS = json.loads((Path(__file__).parent / "fixtures" / "corpus.json").read_text())
MIN_RECALL_AT_5 = 0.9


@pytest.mark.long(seconds=40)
async def test_recall_at_5_and_paraphrases(gateway, identity: IdentityFactory, indexer: Indexer):
    org = await identity.organization()
    searcher = Searcher(gateway, org, {"x-api-key": await identity.api_key(org)})
    products = {product["key"]: await identity.product(org, product["name"]) for product in CORPUS["products"]}
    ids = {document["key"]: str(uuid.uuid4()) for document in CORPUS["documents"]}
    now = datetime.now(UTC).isoformat()
    for document in CORPUS["documents"]:
        await indexer.apply(
            org.id,
            {
                "id": ids[document["key"]],
                "brandId": products[document["product"]]["id"],
                "status": "published",
                "type": "page",
                "title": document["title"],
                "content": document["content"],
                "filePath": f"/{document['product']}/{document['slug']}",
                "sourceUrl": None,
                "updatedAt": now,
                "deletedAt": None,
            },
        )
    keys = {value: key for key, value in ids.items()}

    recalls, paraphrase_misses, report = [], [], []
    for labelled in CORPUS["queries"]:
        top = [keys[found] for found in await searcher.ids(labelled["query"], nResults=5)]
        relevant = set(labelled["relevant"])
        recalls.append(len(relevant & set(top)) / len(relevant))
        if labelled["paraphrase"] and not relevant & set(top):
            paraphrase_misses.append(labelled["query"])
        if not relevant <= set(top):
            report.append(f"{labelled['query']!r}: wanted {sorted(relevant)}, got {top}")
    recall = sum(recalls) / len(recalls)
    paraphrases = sum(1 for labelled in CORPUS["queries"] if labelled["paraphrase"])
    print(
        f"recall@5 {recall:.3f} over {len(recalls)} queries; paraphrases in the top 5:"
        f" {paraphrases - len(paraphrase_misses)}/{paraphrases}"
    )
    assert len(CORPUS["documents"]) >= 200 and len(recalls) >= 30
    assert recall >= MIN_RECALL_AT_5, "\n".join(report)
    assert paraphrase_misses == [], "\n".join(report)
