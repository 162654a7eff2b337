"""Ranking by BM25 (rank-bm25's Okapi scoring): the App's linked pages against the goal, then the
passages of the pages read. Words are lowercased runs of letters and digits, without the most
common English words, so a goal's question words do not outweigh what it asks about.

The IDF is Lucene's, log(1 + (N - n + 0.5) / (n + 0.5)), never negative: an agent ranks a
handful of pages or passages, where Okapi's own IDF turns negative for a word in more than half
of them (and for every word of a one-passage page), and a match would score below no match.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from rank_bm25 import BM25Okapi

WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from has have how i in is it its me my of on or our so"
    " that the their there this to was what when where which who why will with you your".split()
)


def words(text: str) -> list[str]:
    """The ranking's terms of `text`: lowercased words, without stopwords; a plural's `s` removed."""
    found = []
    for word in WORD.findall(text.lower()):
        if word in STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.append(word)
    return found


class LuceneIdfBM25(BM25Okapi):  # type: ignore[misc]
    def _calc_idf(self, nd: Mapping[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


def bm25_scores(query: str, texts: Sequence[str]) -> list[float]:
    """Each text's BM25 score for `query`, in the order given (all 0.0 when nothing matches)."""
    if not texts:
        return []
    corpus = [words(text) for text in texts]
    if not any(corpus):
        return [0.0] * len(texts)
    # An empty document would divide by zero in the average length; one placeholder term is inert.
    index = LuceneIdfBM25([terms or ["\x00"] for terms in corpus])
    return [float(score) for score in index.get_scores(words(query))]
