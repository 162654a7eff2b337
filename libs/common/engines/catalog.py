"""The engine client of each catalog id: configured ones only (an engine without its key is never
called, nor imitated)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from libs.common.engines.access import EngineAccess
from libs.common.engines.anthropic_web import AnthropicWeb
from libs.common.engines.openai_search import OpenAISearch
from libs.common.engines.perplexity_sonar import PerplexitySonar
from libs.common.engines.reply import Engine

CLIENTS: dict[str, Callable[[EngineAccess, float, int], Engine]] = {
    "openai-search": OpenAISearch,
    "perplexity-sonar": PerplexitySonar,
    "anthropic-web": AnthropicWeb,
}


def engines(accesses: Iterable[EngineAccess], timeout: float, retries: int) -> dict[str, Engine]:
    """A client per configured engine, by id."""
    return {
        access.engine.id: CLIENTS[access.engine.id](access, timeout, retries)
        for access in accesses
        if access.configured
    }
