"""The definitions of every number the analytics part reports, written once.

Over the completed answers in scope (failed, empty and refused answers leave every numerator and
denominator: the rollups count only `completed` answers, migrations/004_rollups.sql):

- visibility(b) = answers mentioning b / answers;
- share of voice(b) = mentions of b / mentions of every tracked brand (the product's and its
  competitors'): the basis is named in the result (`SHARE_OF_VOICE_BASIS`);
- average position(b) = sum of b's positions / answers mentioning b (1 is named first);
- sentiment(b) = mean score (VADER's compound, -1 to 1) over the answers mentioning b, with the
  count of each label;
- citation rate(d) = answers citing d / answers citing at least one page;
- retrieved share(d) = answers drawing on d (a page cited or retrieved) / answers drawing on at
  least one page;
- citation share(u) = citations of u / all citations.

A proportion is `{value, count, total, interval}` with the Wilson score interval at 95%; a mean is
`{value, sum, count}`. `value` is null when its denominator is zero. Counts and sums are what a
client needs to add periods or groups together without error: never average the values.
"""

from __future__ import annotations

import math
from typing import Any

from libs.common.ratios import ratio

SHARE_OF_VOICE_BASIS = "mentions of every tracked brand"
# The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(count: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of `count` successes in `total` trials; None without a trial."""
    if total <= 0:
        return None
    p = count / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def proportion(count: int, total: int) -> dict[str, Any]:
    """`count` of `total`, with its 95% interval."""
    if count < 0 or count > max(total, 0):
        raise ValueError(f"a proportion of {count} in {total}")
    interval = wilson(count, total)
    return {**ratio(count, total), "interval": None if interval is None else {"low": interval[0], "high": interval[1]}}


def mean(total: float, count: int) -> dict[str, Any]:
    """The mean of `count` values summing to `total`."""
    return {"value": total / count if count else None, "sum": total, "count": count}


def visibility(mentioning: int, answers: int) -> dict[str, Any]:
    return proportion(mentioning, answers)


def share_of_voice(mentions: int, all_mentions: int) -> dict[str, Any]:
    return {**proportion(mentions, all_mentions), "basis": SHARE_OF_VOICE_BASIS}


def average_position(position_sum: int, mentioning: int) -> dict[str, Any]:
    return mean(position_sum, mentioning)


def sentiment(score_sum: float, positive: int, neutral: int, negative: int) -> dict[str, Any]:
    labels = {"positive": positive, "neutral": neutral, "negative": negative}
    return {**mean(score_sum, positive + neutral + negative), "labels": labels}


def citation_rate(citing: int, answers_citing_any: int) -> dict[str, Any]:
    return proportion(citing, answers_citing_any)


def retrieved_share(drawing: int, answers_drawing_any: int) -> dict[str, Any]:
    return proportion(drawing, answers_drawing_any)


def citation_share(citations: int, all_citations: int) -> dict[str, Any]:
    return proportion(citations, all_citations)


def change(current: dict[str, Any], previous: dict[str, Any]) -> float | None:
    """The difference of two values of the same metric; None when either is missing."""
    if current["value"] is None or previous["value"] is None:
        return None
    return float(current["value"] - previous["value"])
