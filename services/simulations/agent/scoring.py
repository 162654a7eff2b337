"""Judging a run: each success criterion's verdict and why, the score, and whether it passed.

The checks are WebArena's deterministic ones (`must_include`, `exact_match` after normalisation,
`url_match` as `page_reached` and `url_visited`) with `regex`. As in τ-bench the score is a
product: each required criterion is 1 or 0, times the weighted share of the others that hold
(1 when there are none); the run passed when every required criterion holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from libs.contract.validators import normalize_route_path

CRITERION_TYPES = ("must_include", "exact_match", "regex", "page_reached", "url_visited")
EDGE_PUNCTUATION = " \t\n\"'`.,;:!?()[]{}"


@dataclass(frozen=True)
class Verdict:
    type: str
    value: str
    required: bool
    weight: float
    holds: bool
    why: str

    def view(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "value": self.value,
            "required": self.required,
            "weight": self.weight,
            "holds": self.holds,
            "why": self.why,
        }


@dataclass(frozen=True)
class Judged:
    """What the agent produced, as the criteria read it."""

    short_answer: str | None
    answer_text: str | None
    # The path of the page the answer was taken from, and every path the agent fetched.
    answer_path: str | None
    visited: tuple[str, ...]


def normalise(text: str) -> str:
    """Unicode-compatible, case-folded, whitespace collapsed, punctuation at either end removed."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return folded.strip(EDGE_PUNCTUATION)


def page_path(value: str) -> str:
    """A criterion's page, given as a path or a URL, as the route key the agent's paths are kept as."""
    parts = urlsplit(value)
    path = parts.path if parts.scheme or parts.netloc else value.split("?", 1)[0]
    return normalize_route_path(path or "/")


def _judge(criterion: dict[str, Any], judged: Judged) -> tuple[bool, str]:
    kind, value = criterion["type"], criterion["value"]
    if kind in ("must_include", "exact_match", "regex") and judged.answer_text is None:
        return False, "the agent gave no answer"
    answer_text, short = judged.answer_text or "", judged.short_answer or ""
    if kind == "must_include":
        holds = normalise(value) in normalise(answer_text)
        return holds, f"the answer {'includes' if holds else 'does not include'} {value!r}"
    if kind == "exact_match":
        holds = normalise(short) == normalise(value)
        return holds, f"the short answer {short!r} {'matches' if holds else 'does not match'} {value!r}"
    if kind == "regex":
        holds = re.search(value, answer_text) is not None
        return holds, f"the answer {'matches' if holds else 'does not match'} /{value}/"
    wanted = page_path(value)
    if kind == "page_reached":
        if judged.answer_path is None:
            return False, f"the agent answered from no page; {wanted} was wanted"
        holds = judged.answer_path == wanted
        return holds, f"the answer came from {judged.answer_path}" + ("" if holds else f", not {wanted}")
    holds = wanted in judged.visited
    return holds, f"the agent {'fetched' if holds else 'never fetched'} {wanted}"


def score(criteria: Iterable[dict[str, Any]], judged: Judged) -> tuple[list[Verdict], float, bool]:
    """The verdict of each criterion, the score (required product × weighted share of the rest), passed."""
    verdicts = []
    for criterion in criteria:
        holds, why = _judge(criterion, judged)
        required = bool(criterion.get("required", True))
        weight = float(criterion.get("weight", 1.0))
        verdicts.append(Verdict(criterion["type"], criterion["value"], required, weight, holds, why))
    needed = [verdict for verdict in verdicts if verdict.required]
    rest = [verdict for verdict in verdicts if not verdict.required]
    passed = all(verdict.holds for verdict in needed)
    weights = sum(verdict.weight for verdict in rest)
    share = sum(verdict.weight for verdict in rest if verdict.holds) / weights if weights > 0 else 1.0
    return verdicts, (1.0 if passed else 0.0) * share, passed
