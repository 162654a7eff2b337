"""The answer an agent gives from the passage it found: a short answer of the kind the goal asks
for (a price, a plan, yes or no, else the passage's best sentence) and the facts the passage holds."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.simulations.agent.ranking import bm25_scores

PRICE = re.compile(
    r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|dollars|euros))"
    r"(?:\s?(?:/|per)\s?(?:month|mo|year|yr|user|seat|week))?",
    re.IGNORECASE,
)
PLAN = re.compile(r"\b([A-Z][\w+-]*(?:\s[A-Z][\w+-]*)?)\s+(?:plan|tier|edition)\b")
NEGATION = re.compile(r"\b(?:no|not|never|none|cannot|without)\b|n't\b", re.IGNORECASE)
YES_NO_START = re.compile(r"^\s*(?:is|are|does|do|can|has|have|will|should|could)\b", re.IGNORECASE)
PRICE_GOAL = re.compile(r"\b(?:price|prices|pricing|cost|costs|how much|fee|fees)\b", re.IGNORECASE)
PLAN_GOAL = re.compile(r"\b(?:which|what)\s+(?:plan|tier|edition)\b", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?])\s+")
MAX_ANSWER_CHARS = 2000


@dataclass(frozen=True)
class Answer:
    # The short answer (`exact_match` is judged on it) and the passage it stands on.
    short: str
    passage: str
    intent: str
    facts: dict[str, list[str]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """What `must_include` and `regex` are judged on: the short answer, then its passage."""
        return (self.short if self.short == self.passage else f"{self.short}\n{self.passage}")[:MAX_ANSWER_CHARS]


def intent_of(goal: str) -> str:
    if PRICE_GOAL.search(goal):
        return "price"
    if PLAN_GOAL.search(goal):
        return "plan"
    if YES_NO_START.match(goal):
        return "yes_no"
    return "passage"


def facts_of(passage: str) -> dict[str, list[str]]:
    found = {
        "prices": [match.group(0).strip() for match in PRICE.finditer(passage)],
        "plans": list(dict.fromkeys(match.group(1) for match in PLAN.finditer(passage))),
    }
    return {name: values for name, values in found.items() if values}


def holds_fact(goal: str, passage: str) -> bool:
    """Whether the passage holds what the goal asks for (a price for a price question, and so on)."""
    intent = intent_of(goal)
    facts = facts_of(passage)
    return {"price": "prices" in facts, "plan": "plans" in facts}.get(intent, True)


def answer(goal: str, passage: str) -> Answer:
    intent = intent_of(goal)
    facts = facts_of(passage)
    if intent == "yes_no":
        facts["yesNo"] = ["no" if NEGATION.search(passage) else "yes"]
    if intent == "price" and "prices" in facts:
        short = facts["prices"][0]
    elif intent == "plan" and "plans" in facts:
        short = facts["plans"][0]
    elif intent == "yes_no":
        short = facts["yesNo"][0].capitalize()
    else:
        sentences = [sentence for sentence in SENTENCE.split(passage) if sentence.strip()] or [passage]
        scores = bm25_scores(goal, sentences)
        short = sentences[max(range(len(sentences)), key=lambda index: (scores[index], -index))].strip()
    return Answer(short, passage, intent, facts)
