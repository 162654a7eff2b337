"""A run's trajectory as the agent records it, and what an agent is given and gives back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from services.simulations.agent.answer import Answer


@dataclass(frozen=True)
class Step:
    """One thing the run did: a readiness `check`, a `fetch` of the entry document, a `rank` of the
    linked pages, a `read` of a page, a `stop` at a budget, the `answer`, the `judge`ment."""

    kind: str
    name: str
    url: str | None = None
    status: int | None = None
    bytes: int = 0
    tokens: int = 0
    ok: bool | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0


Record = Callable[[Step], Awaitable[None]]


@dataclass(frozen=True)
class AgentConfig:
    """An environment's `agentConfig`, loaded (services/simulations/schemas.py declares it)."""

    kind: str
    entry_point: str
    max_steps: int
    max_bytes: int
    max_tokens: int
    max_pages: int
    user_agent: str
    seed: int
    temperature: float
    engine: str | None


@dataclass(frozen=True)
class Assignment:
    """What one trial is asked: the task's goal and criteria, under the environment's agent."""

    goal: str
    criteria: list[dict[str, Any]]
    step_budget: int
    config: AgentConfig
    # The trial's own seed: the environment's, plus the trial's number less one.
    seed: int

    @property
    def steps_allowed(self) -> int:
        return min(self.step_budget, self.config.max_steps)


@dataclass(frozen=True)
class Outcome:
    answer: Answer | None
    answer_path: str | None
    visited: tuple[str, ...]
    tokens: int
    bytes: int
    snapshot: str
    # Why the agent stopped: `answered`, `no_answer`, `budget_steps`, `budget_bytes`, `budget_tokens`,
    # `no_entry` (its entry document could not be read), `robots` (the App's robots rules refuse it).
    stopped: str
    # US dollars the engine of an `llm` agent reported, or priced from its tokens (0 without a model).
    cost: float = 0.0
