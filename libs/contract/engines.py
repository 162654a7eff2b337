"""The AI engines answers come from, one per vendor surface, declared once: the personas part checks
a prompt's engines against these ids, the analytics part calls them and lists them
(`GET /api/v1/engines`, where each also says whether this deployment holds its key)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Engine:
    # Stable: stored with every answer, named in prompts and filters.
    id: str
    vendor: str
    name: str
    searches_web: bool
    # The model asked unless the deployment names another (`<VENDOR>_MODEL`).
    default_model: str


OPENAI_SEARCH = Engine("openai-search", "openai", "ChatGPT search (Responses API, web search)", True, "gpt-4.1-mini")
PERPLEXITY_SONAR = Engine("perplexity-sonar", "perplexity", "Perplexity Sonar", True, "sonar")
ANTHROPIC_WEB = Engine("anthropic-web", "anthropic", "Claude with web search (Messages API)", True, "claude-sonnet-4-6")

ENGINES: tuple[Engine, ...] = (OPENAI_SEARCH, PERPLEXITY_SONAR, ANTHROPIC_WEB)
ENGINE_IDS: tuple[str, ...] = tuple(engine.id for engine in ENGINES)
BY_ID: dict[str, Engine] = {engine.id: engine for engine in ENGINES}
