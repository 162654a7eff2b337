"""How documents are split into chunks the model reads whole."""

from __future__ import annotations

from services.search.app import shared_embedder
from services.search.chunking import CHUNK_TOKENS, MAX_CHUNKS, model_text, split


def count(text: str) -> int:
    return shared_embedder().token_count(text)


def test_a_short_document_is_one_chunk():
    assert split("# Hello\n\nA line.\n\nAnother line.", count) == ["# Hello\n\nA line.\n\nAnother line."]


def test_nothing_but_whitespace_is_no_chunk():
    assert split(" \n\n \n", count) == []


def test_paragraphs_group_up_to_the_budget_and_never_split_inside_when_they_fit():
    paragraphs = [f"Paragraph {n} " + "about the garden and its roses " * 8 for n in range(12)]
    chunks = split("\n\n".join(paragraphs), count)
    assert len(chunks) > 1
    assert all(count(chunk) <= CHUNK_TOKENS for chunk in chunks)
    assert "\n\n".join(chunks) == "\n\n".join(paragraph.strip() for paragraph in paragraphs)


def test_a_paragraph_longer_than_the_budget_is_cut_between_words():
    words = [f"word{n}" for n in range(1500)]
    chunks = split(" ".join(words), count)
    assert len(chunks) > 5
    assert all(count(chunk) <= CHUNK_TOKENS for chunk in chunks)
    assert " ".join(chunks).split() == words


def test_a_huge_document_is_capped():
    chunks = split("\n\n".join(["A short paragraph of text. " * 30] * (MAX_CHUNKS * 2)), count)
    assert len(chunks) == MAX_CHUNKS


def test_the_model_reads_the_title_before_the_chunk():
    assert model_text("Refunds", "Within 30 days.") == "Refunds\nWithin 30 days."
    assert model_text("", "Within 30 days.") == "Within 30 days."
