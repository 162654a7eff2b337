"""The agent kinds a run may use, behind one contract: given an assignment, the run's view of the
App and its readiness, record steps and return an outcome.

`deterministic` needs nothing. `llm` (services/simulations/agent/llm.py) calls an engine of the
catalog (libs/contract/engines.py) through its vendor's SDK, with the engine's key from the
part's settings (`<VENDOR>_API_KEY`, the same settings the analytics part reads): an engine
without a key is refused when the environment is saved and when a run is asked, with the reason;
nothing answers in its place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping

from libs.common.engines.access import EngineAccess, key_setting
from libs.common.engines.reply import Engine
from libs.contract.engines import ENGINE_IDS
from services.simulations.agent import deterministic, llm
from services.simulations.agent.fetcher import RunFetcher
from services.simulations.agent.readiness import Readiness
from services.simulations.agent.steps import AgentConfig, Assignment, Outcome, Record

Agent = Callable[[Assignment, RunFetcher, Readiness, Record], Awaitable[Outcome]]

KINDS = ("deterministic", "llm")
ENGINES = ENGINE_IDS


class AgentRefused(Exception):
    """The environment's agent cannot run here; the message says why and what to do."""


def check(kind: str, engine: str | None, accesses: Iterable[EngineAccess]) -> None:
    """AgentRefused when an agent of this kind and engine cannot run with this deployment's keys."""
    if kind == "deterministic":
        return
    if engine is None:
        raise AgentRefused("an llm agent names its engine in agentConfig.engine: one of " + ", ".join(ENGINES))
    access = next((access for access in accesses if access.engine.id == engine), None)
    if access is None or not access.configured:
        setting = key_setting(access.engine) if access else "its key"
        raise AgentRefused(
            f"the llm agent's engine {engine!r} has no key: set {setting} for the simulations part,"
            " or use the deterministic agent"
        )


def agent_for(config: AgentConfig, clients: Mapping[str, Engine]) -> Agent:
    """The agent of `config` with this worker's engine clients (configured engines only)."""
    if config.kind == "deterministic":
        return deterministic.run
    client = clients.get(config.engine or "")
    if client is None:
        raise AgentRefused(f"the llm agent's engine {config.engine!r} has no key on this worker")
    return llm.agent(config.engine or "", client)
