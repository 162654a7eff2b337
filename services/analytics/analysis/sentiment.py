"""Sentiment of the sentences that name a brand, by VADER (vaderSentiment): a lexicon and rules
tuned to short English texts, shipped inside the package, so nothing is downloaded at run time.
It reads English; text in other languages mostly scores neutral (docs/architecture.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

# VADER's own suggested cut-offs on the compound score.
POSITIVE = 0.05
NEGATIVE = -0.05
# A sentence ends at ., ! or ? before a space, or at a line break (list items, table rows).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")

_ANALYZER = SentimentIntensityAnalyzer()


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int


@dataclass(frozen=True)
class Sentiment:
    label: str
    score: float


def sentences(text: str) -> list[Sentence]:
    """The spans of `text`'s sentences, in order."""
    spans: list[Sentence] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if text[start : match.start()].strip():
            spans.append(Sentence(start, match.start()))
        start = match.end()
    if text[start:].strip():
        spans.append(Sentence(start, len(text)))
    return spans


def label(score: float) -> str:
    return "positive" if score >= POSITIVE else "negative" if score <= NEGATIVE else "neutral"


def sentiment_of(texts: list[str]) -> Sentiment:
    """The mean compound score of the sentences (each once) and its label."""
    if not texts:
        return Sentiment("neutral", 0.0)
    score = round(sum(_ANALYZER.polarity_scores(text)["compound"] for text in texts) / len(texts), 4)
    return Sentiment(label(score), score)
