"""The engine client of each catalog id: configured ones only (an engine without its key is never
called, nor imitated)."""

from __future__ import annotations

from collections.abc import Callable

from services.analytics.engines.anthropic_web import AnthropicWeb
from services.analytics.engines.openai_search import OpenAISearch
from services.analytics.engines.perplexity_sonar import PerplexitySonar
from services.analytics.engines.reply import Engine
from services.analytics.settings import AnalyticsSettings, EngineAccess

CLIENTS: dict[str, Callable[[EngineAccess, float, int], Engine]] = {
    "openai-search": OpenAISearch,
    "perplexity-sonar": PerplexitySonar,
    "anthropic-web": AnthropicWeb,
}


def engines(settings: AnalyticsSettings) -> dict[str, Engine]:
    """A client per configured engine, by id."""
    return {
        access.engine.id: CLIENTS[access.engine.id](access, settings.engine_timeout_seconds, settings.engine_retries)
        for access in settings.engines
        if access.configured
    }
