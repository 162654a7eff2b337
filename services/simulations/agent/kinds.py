"""The agent kinds a run may use, behind one contract: given an assignment, the run's view of the
App and its readiness, record steps and return an outcome.

`deterministic` needs nothing. `llm` is an agent calling an AI engine through its vendor's SDK
with the engine's key from the settings (`<ENGINE>_API_KEY`, services/simulations/settings.py);
an engine without a key, or without a client in this build (`ENGINE_CLIENTS`), is refused before
the run is queued, with the reason: nothing answers in its place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from services.simulations.agent import deterministic
from services.simulations.agent.fetcher import RunFetcher
from services.simulations.agent.readiness import Readiness
from services.simulations.agent.steps import AgentConfig, Assignment, Outcome, Record

Agent = Callable[[Assignment, RunFetcher, Readiness, Record], Awaitable[Outcome]]

KINDS = ("deterministic", "llm")
# The vendors an `llm` agent may name, each with its key in `<VENDOR>_API_KEY`: the vendors and the
# setting names of the engine catalog the answers of AI engines are collected with.
ENGINES = ("openai", "perplexity", "anthropic")
# The engine clients of this build, by engine name: where an SDK-backed `llm` agent plugs in.
ENGINE_CLIENTS: dict[str, Agent] = {}


class AgentRefused(Exception):
    """The environment's agent cannot run here; the message says why and what to do."""


def engine_key_setting(engine: str) -> str:
    return f"{engine.upper()}_API_KEY"


def agent_for(config: AgentConfig, engine_keys: Mapping[str, str]) -> Agent:
    """The agent of `config`, or AgentRefused saying why it cannot run."""
    if config.kind == "deterministic":
        return deterministic.run
    engine = config.engine
    if engine is None:
        raise AgentRefused("an llm agent names its engine in agentConfig.engine: one of " + ", ".join(ENGINES))
    if engine not in engine_keys:
        raise AgentRefused(
            f"the llm agent's engine {engine!r} has no key: set {engine_key_setting(engine)} for the simulations"
            " part, or use the deterministic agent"
        )
    client = ENGINE_CLIENTS.get(engine)
    if client is None:
        raise AgentRefused(f"the engine {engine!r} has a key but no client in this build: use the deterministic agent")
    return client
