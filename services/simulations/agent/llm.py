"""The `llm` agent: it reads an App as the deterministic agent does (entry document, BM25 ranking,
the best pages within the budgets), then asks an AI engine of the catalog (libs/common/engines,
the same vendor SDKs and settings the answers of AI engines are collected with) to answer the goal
from the pages read, without searching the web, and to name the page its answer comes from.

Its tokens and cost are the ones the vendor reported for the call (counted with the tokenizer when
the vendor reports none). Nothing stands in for an engine: without its key the agent is refused
(services/simulations/agent/kinds.py); an engine that fails fails the run's attempt.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from libs.common.engines.reply import Engine
from services.simulations.agent import answer as answers
from services.simulations.agent.deterministic import explore
from services.simulations.agent.fetcher import RunFetcher
from services.simulations.agent.readiness import Readiness
from services.simulations.agent.scoring import page_path
from services.simulations.agent.steps import Assignment, Outcome, Record, Step
from services.simulations.agent.tokens import count_tokens

# A page's markdown is given to the engine up to this many characters.
PAGE_CHARS = 12_000
SOURCE = re.compile(r"^\s*source\s*:\s*(\S+)\s*$", re.IGNORECASE | re.MULTILINE)
NOT_FOUND = "not found"

PROMPT = """You are an agent visiting a website to answer a visitor's question. Answer only from the \
pages below; do not search the web.

Question: {goal}

Reply with the answer on the first line, as short as the question allows (a price, a plan name, yes \
or no, else one sentence), then a line `Source: <path>` naming the page it comes from. If the pages \
do not answer the question, reply `Not found`.
{pages}"""


def prompt_of(goal: str, pages: list[tuple[str, str]]) -> str:
    shown = "".join(f"\n## Page: {path}\n\n{text[:PAGE_CHARS]}\n" for path, text in pages)
    return PROMPT.format(goal=goal, pages=shown)


def parsed(text: str, read: list[str]) -> tuple[str, str | None]:
    """The reply's short answer, and the page it names when that page was read."""
    cited = SOURCE.search(text)
    body = SOURCE.sub("", text).strip()
    short = next((line.strip() for line in body.splitlines() if line.strip()), "")
    path = page_path(cited.group(1).strip("`<>")) if cited else None
    return short, path if path in read else None


def agent(engine_id: str, engine: Engine) -> Callable[[Assignment, RunFetcher, Readiness, Record], Awaitable[Outcome]]:
    async def run(assignment: Assignment, fetcher: RunFetcher, readiness: Readiness, record: Record) -> Outcome:
        reading = await explore(assignment, fetcher, readiness, record)
        if reading.ended:
            return reading.outcome(fetcher, reading.stopped)
        if not reading.pages:
            await record(Step("answer", "none", ok=False, detail={"why": "no page was read"}))
            return reading.outcome(fetcher, reading.stopped)
        prompt = prompt_of(assignment.goal, reading.pages)
        reply = await engine.ask(prompt, web_search=False)
        given = reply.input_tokens if reply.input_tokens is not None else count_tokens(prompt)
        made = reply.output_tokens if reply.output_tokens is not None else count_tokens(reply.text)
        # The run's tokens are the model's: what it was given (the pages read among them) and wrote.
        reading.budget.tokens = given + made
        cost = reply.cost_usd or 0.0
        usage = {
            "engine": engine_id,
            "model": reply.model,
            "inputTokens": given,
            "outputTokens": made,
            "costUsd": reply.cost_usd,
        }
        short, path = parsed(reply.text, [read for read, _ in reading.pages])
        if reply.status != "completed" or not short or short.strip(" .").lower() == NOT_FOUND:
            why = {"refused": "the engine declined to answer", "empty": "the engine answered nothing"}.get(
                reply.status, "the engine found no answer in the pages read"
            )
            await record(
                Step(
                    "answer",
                    "none",
                    None,
                    None,
                    0,
                    given + made,
                    False,
                    {"why": why, "reply": reply.text[:1000], **usage},
                )
            )
            return reading.outcome(fetcher, "no_answer", cost=cost)
        found = answers.Answer(
            short, reply.text.strip(), answers.intent_of(assignment.goal), answers.facts_of(reply.text)
        )
        await record(
            Step(
                "answer",
                found.intent,
                path,
                None,
                0,
                given + made,
                True,
                {
                    "answer": short,
                    "passage": found.passage[:1000],
                    "facts": found.facts,
                    "source": path,
                    **usage,
                },
            )
        )
        return reading.outcome(fetcher, "answered", found, path, cost)

    return run
