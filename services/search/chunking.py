"""How a document becomes chunks: pieces of its markdown short enough for the model to read whole.

all-MiniLM-L6-v2 reads at most 256 tokens and ignores the rest, so a long document is split at
paragraph boundaries into pieces of at most CHUNK_TOKENS tokens (a paragraph longer than that is
split between words), and each piece is embedded after the document's title, which tells the
model what the piece is about. Short documents are one chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Leaves room for the title and the model's two special tokens within its 256.
CHUNK_TOKENS = 200
# Far past any real document; what lies beyond is not indexed (a document may hold megabytes).
MAX_CHUNKS = 200

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_WHITESPACE = re.compile(r"\s+")

TokenCounter = Callable[[str], int]


def _paragraphs(markdown: str) -> list[str]:
    return [p.strip() for p in _PARAGRAPH_BREAK.split(markdown) if p.strip()]


def _split_long(paragraph: str, count: TokenCounter) -> list[str]:
    """A paragraph over the budget, as pieces within it, cut between words."""
    pieces: list[str] = []
    words = _WHITESPACE.split(paragraph)
    while words:
        # Every word is at least one token, so no more than the budget's worth of words can fit.
        take = min(len(words), CHUNK_TOKENS - 2)
        while take > 1 and count(" ".join(words[:take])) > CHUNK_TOKENS:
            take = int(take * 0.8)
        pieces.append(" ".join(words[:take]))
        words = words[take:]
    return pieces


def split(markdown: str, count: TokenCounter) -> list[str]:
    """The chunks of a document's markdown, in order; none for a document without text.

    `count` tells how many tokens the model makes of a text (Embedder.token_count).
    """
    chunks: list[str] = []
    current: list[str] = []
    current_tokens = 0
    for paragraph in _paragraphs(markdown):
        tokens = count(paragraph)
        pieces = [paragraph] if tokens <= CHUNK_TOKENS else _split_long(paragraph, count)
        for piece in pieces:
            piece_tokens = tokens if len(pieces) == 1 else count(piece)
            if current and current_tokens + piece_tokens > CHUNK_TOKENS:
                chunks.append("\n\n".join(current))
                current, current_tokens = [], 0
            current.append(piece)
            current_tokens += piece_tokens
            if len(chunks) >= MAX_CHUNKS:
                return chunks
    if current:
        chunks.append("\n\n".join(current))
    return chunks[:MAX_CHUNKS]


def model_text(title: str, chunk: str) -> str:
    """What the model reads of a chunk: the document's title, then the chunk."""
    return f"{title}\n{chunk}" if title else chunk
