"""The engine client of each catalog id: configured ones only (an engine without its key is never
called, nor imitated). A client's module, and so its vendor's SDK, is imported only when its engine
is configured: the three SDKs take seconds of CPU to import, which a part with no key never pays."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import cast

from libs.common.engines.access import EngineAccess
from libs.common.engines.reply import Engine

# catalog id -> (module, class) of its client
CLIENTS: dict[str, tuple[str, str]] = {
    "openai-search": ("libs.common.engines.openai_search", "OpenAISearch"),
    "perplexity-sonar": ("libs.common.engines.perplexity_sonar", "PerplexitySonar"),
    "anthropic-web": ("libs.common.engines.anthropic_web", "AnthropicWeb"),
}


def client_class(engine_id: str) -> Callable[[EngineAccess, float, int], Engine]:
    module, name = CLIENTS[engine_id]
    return cast(Callable[[EngineAccess, float, int], Engine], getattr(importlib.import_module(module), name))


def engines(accesses: Iterable[EngineAccess], timeout: float, retries: int) -> dict[str, Engine]:
    """A client per configured engine, by id."""
    return {
        access.engine.id: client_class(access.engine.id)(access, timeout, retries)
        for access in accesses
        if access.configured
    }
