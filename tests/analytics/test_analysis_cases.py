"""The analysis against answers written for it (tests/analytics/analysis_cases.py): mentions in
order, positions, list ranks, citations and where the text writes them, case by case."""

from __future__ import annotations

import pytest

from services.analytics.analysis.analyse import analyse
from services.analytics.analysis.citations import owners
from services.analytics.analysis.urls import normalise
from tests.analytics.analysis_cases import CASES, DOMAINS, TRACKED, Case

HOLDERS = owners(TRACKED, DOMAINS)


def _run(case: Case):  # type: ignore[no-untyped-def]
    return analyse(
        case.text, TRACKED, HOLDERS, [{"url": url} for url in case.cited], [{"url": url} for url in case.retrieved]
    )


def test_the_table_holds_at_least_forty_answers() -> None:
    assert len(CASES) >= 40
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_mentions(case: Case) -> None:
    analysis = _run(case)
    assert [(match.key, match.text) for match in analysis.mentions] == case.mentions
    for match in analysis.mentions:
        assert case.text[match.start : match.end] == match.text


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_positions_and_ranks(case: Case) -> None:
    analysis = _run(case)
    assert {brand.key: (brand.position, brand.list_rank) for brand in analysis.brands} == case.brands
    counts = {key: sum(1 for k, _ in case.mentions if k == key) for key, _ in case.mentions}
    assert {brand.key: brand.mentions for brand in analysis.brands} == counts


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_citations(case: Case) -> None:
    analysis = _run(case)
    assert [
        (citation.url, citation.domain, citation.cited, citation.classification) for citation in analysis.citations
    ] == case.citations


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_citation_spans(case: Case) -> None:
    analysis = _run(case)
    assert {citation.url: list(citation.spans) for citation in analysis.citations} == {
        url: case.spans.get(url, []) for url, *_ in case.citations
    }
    for citation in analysis.citations:
        assert all(normalise(case.text[start:end]) == citation.url for start, end in citation.spans)
