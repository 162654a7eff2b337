"""The deterministic agent: no model service, so it runs anywhere, the suite included.

From the App's entry document (llms.txt, or the sitemap) it ranks the linked pages against the
goal (BM25), reads the best ones as markdown within its budgets, and answers from the passage
that ranks best (services/simulations/agent/answer.py). The same goal, seed and content give the
same steps and answer: the seed breaks ties between equally ranked pages and, with a
`temperature` above 0, draws the reading order from the ranking's softmax.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from urllib.parse import urlsplit

from services.simulations.agent import answer as answers
from services.simulations.agent import documents
from services.simulations.agent.fetcher import RunFetcher
from services.simulations.agent.ranking import bm25_scores, words
from services.simulations.agent.readiness import Readiness
from services.simulations.agent.scoring import page_path
from services.simulations.agent.steps import Assignment, Outcome, Record, Step
from services.simulations.agent.tokens import count_tokens

RANKED_SHOWN = 10
PASSAGES_SHOWN = 3


@dataclass(frozen=True)
class Candidate:
    link: documents.Link
    score: float


@dataclass
class Budget:
    steps: int
    bytes: int
    tokens: int

    def exhausted(self, assignment: Assignment) -> str | None:
        config = assignment.config
        if self.steps >= assignment.steps_allowed:
            return "budget_steps"
        if self.bytes >= config.max_bytes:
            return "budget_bytes"
        if self.tokens >= config.max_tokens:
            return "budget_tokens"
        return None


def _candidates(readiness: Readiness, entry_point: str) -> list[documents.Link]:
    """The pages the entry document links to on the App's own site, each path once."""
    if entry_point == "sitemap":
        links = [documents.Link(urlsplit(url).path, url, "", "") for url in readiness.sitemap or []]
    else:
        links = list(readiness.llms.links) if readiness.llms else []
    site = links[0].host if links else ""
    seen: dict[str, documents.Link] = {}
    for link in links:
        if link.host == site and page_path(link.path) not in seen:
            seen[page_path(link.path)] = link
    return list(seen.values())


def _reading_order(goal: str, links: list[documents.Link], seed: int, temperature: float) -> list[Candidate]:
    texts = [f"{link.title}\n{link.note}\n{link.section}\n{' '.join(words(link.path))}" for link in links]
    scores = bm25_scores(goal, texts)
    rng = random.Random(seed)
    ties = [rng.random() for _ in links]
    ranked = sorted(range(len(links)), key=lambda index: (-scores[index], ties[index]))
    if temperature <= 0:
        return [Candidate(links[index], scores[index]) for index in ranked]
    order, left = [], list(ranked)
    while left:
        top = max(scores[index] for index in left)
        weights = [math.exp((scores[index] - top) / temperature) for index in left]
        index = rng.choices(left, weights)[0]
        left.remove(index)
        order.append(Candidate(links[index], scores[index]))
    return order


@dataclass
class Reading:
    """What the agent read: every passage as (page rank, place in its page, page path, passage),
    the passages' scores against the goal, each page read as (path, markdown), and why it stopped.
    `ended`: it stopped before reading (robots refuse it, or no entry document), nothing to answer."""

    budget: Budget
    visited: list[str]
    read: list[tuple[int, int, str, documents.Passage]]
    scores: list[float]
    pages: list[tuple[str, str]]
    stopped: str
    ended: bool = False

    def outcome(
        self,
        fetcher: RunFetcher,
        stopped: str,
        found: answers.Answer | None = None,
        path: str | None = None,
        cost: float = 0.0,
    ) -> Outcome:
        return Outcome(
            found, path, tuple(self.visited), self.budget.tokens, self.budget.bytes, fetcher.snapshot(), stopped, cost
        )


async def explore(assignment: Assignment, fetcher: RunFetcher, readiness: Readiness, record: Record) -> Reading:
    """From the entry document, rank the linked pages and read the best within the budgets, until a
    page's best passage holds what the goal asks for."""
    config = assignment.config
    reading = Reading(Budget(0, 0, count_tokens(assignment.goal)), [], [], [], [], "no_answer")
    budget, visited, read = reading.budget, reading.visited, reading.read
    allowed = readiness.robots

    def refused(path: str) -> bool:
        return allowed is not None and not documents.robots_allow(allowed, config.user_agent, [path])[path]

    entry_path = "/sitemap.xml" if config.entry_point == "sitemap" else "/llms.txt"
    if refused(entry_path):
        await record(Step("stop", "robots", entry_path, ok=False, detail={"why": f"robots.txt refuses {entry_path}"}))
        reading.stopped, reading.ended = "robots", True
        return reading
    entry = await fetcher.get(entry_path)
    visited.append(entry_path)
    budget.steps += 1
    budget.bytes += len(entry.body)
    entry_tokens = count_tokens(entry.text) if entry.ok else 0
    budget.tokens += entry_tokens
    links = _candidates(readiness, config.entry_point) if entry.ok else []
    detail = {"links": len(links), "kept": entry.kept}
    await record(
        Step(
            "fetch",
            config.entry_point,
            entry_path,
            entry.status,
            len(entry.body),
            entry_tokens,
            entry.ok and bool(links),
            detail,
            entry.elapsed_ms,
        )
    )
    if not links:
        reading.stopped, reading.ended = "no_entry", True
        return reading

    order = _reading_order(assignment.goal, links, assignment.seed, config.temperature)
    await record(
        Step(
            "rank",
            "bm25",
            ok=True,
            detail={
                "query": assignment.goal,
                "candidates": len(order),
                "top": [
                    {"url": c.link.url, "title": c.link.title, "score": round(c.score, 4)} for c in order[:RANKED_SHOWN]
                ],
            },
        )
    )

    for rank, candidate in enumerate(order[: config.max_pages]):
        exhausted = budget.exhausted(assignment)
        if exhausted:
            reading.stopped = exhausted
            await record(
                Step(
                    "stop",
                    exhausted,
                    ok=False,
                    detail={
                        "why": f"the {exhausted.removeprefix('budget_')} budget is spent",
                        "steps": budget.steps,
                        "bytes": budget.bytes,
                        "tokens": budget.tokens,
                    },
                )
            )
            break
        path = page_path(candidate.link.path)
        if refused(candidate.link.path):
            await record(
                Step(
                    "read",
                    candidate.link.title,
                    candidate.link.url,
                    ok=False,
                    detail={"why": "robots.txt refuses this page", "rank": rank + 1},
                )
            )
            continue
        page = await fetcher.get(candidate.link.path)
        visited.append(path)
        budget.steps += 1
        budget.bytes += len(page.body)
        tokens = count_tokens(page.text) if page.ok else 0
        budget.tokens += tokens
        page_passages = documents.passages(page.text) if page.ok else []
        if page.ok:
            reading.pages.append((path, page.text))
        first = len(read)
        read += [(rank, position, path, passage) for position, passage in enumerate(page_passages)]
        reading.scores = scores = bm25_scores(assignment.goal, [passage.searchable for *_, passage in read])
        best = max(range(first, len(read)), key=lambda index: (scores[index], -index)) if page_passages else None
        await record(
            Step(
                "read",
                candidate.link.title,
                candidate.link.url,
                page.status,
                len(page.body),
                tokens,
                page.ok,
                {
                    "rank": rank + 1,
                    "passages": len(page_passages),
                    "kept": page.kept,
                    "best": None
                    if best is None
                    else {"score": round(scores[best], 4), "text": read[best][3].text[:300]},
                },
                page.elapsed_ms,
            )
        )
        # Enough read once this page's best passage holds what the goal asks for.
        if best is not None and scores[best] > 0 and answers.holds_fact(assignment.goal, read[best][3].text):
            reading.stopped = "answered"
            break
    return reading


async def run(assignment: Assignment, fetcher: RunFetcher, readiness: Readiness, record: Record) -> Outcome:
    reading = await explore(assignment, fetcher, readiness, record)
    read, scores, budget = reading.read, reading.scores, reading.budget
    if reading.ended:
        return reading.outcome(fetcher, reading.stopped)
    if not read:
        await record(Step("answer", "none", ok=False, detail={"why": "no passage was read"}))
        return reading.outcome(fetcher, reading.stopped)
    # Best by score over every passage read; among equals, the better-ranked page, then the earlier passage.
    best = max(range(len(read)), key=lambda index: (scores[index], -read[index][0], -read[index][1]))
    score, (_, _, path, passage) = scores[best], read[best]
    if score <= 0:
        await record(
            Step("answer", "none", ok=False, detail={"why": "no passage of the pages read shares a word with the goal"})
        )
        return reading.outcome(fetcher, reading.stopped)
    given = answers.answer(assignment.goal, passage.text)
    answer_tokens = count_tokens(given.short)
    budget.tokens += answer_tokens
    await record(
        Step(
            "answer",
            given.intent,
            path,
            None,
            0,
            answer_tokens,
            True,
            {
                "answer": given.short,
                "passage": given.passage[:1000],
                "heading": passage.heading,
                "facts": given.facts,
                "score": round(score, 4),
            },
        )
    )
    return reading.outcome(fetcher, "answered", given, path)
