"""What an engine answered, in the shape answers are stored in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from libs.common.engines.access import EngineAccess

Page = dict[str, str | None]


@dataclass(frozen=True)
class Reply:
    text: str
    model: str
    # `completed`, `empty` (no text) or `refused` (the engine declined).
    status: str
    citations: list[Page] = field(default_factory=list)
    sources: list[Page] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None


class Engine(Protocol):
    """An engine's client. `web_search=False` asks it to answer from the prompt alone (an agent
    that gives it the pages it read); otherwise it searches the web as its product does."""

    async def ask(self, prompt: str, web_search: bool = True) -> Reply: ...

    async def close(self) -> None: ...


class SdkEngine:
    """An engine reached through its vendor's official SDK: the client is the SDK's async client
    built from the deployment's key and base URL (None: the SDK's default), closed with the part."""

    sdk: ClassVar[Any]

    def __init__(self, access: EngineAccess, timeout: float, retries: int) -> None:
        self._access = access
        self._client = self.sdk(api_key=access.api_key, base_url=access.base_url, timeout=timeout, max_retries=retries)

    async def close(self) -> None:
        await self._client.close()


def status_of(text: str, refused: bool) -> str:
    return "refused" if refused else "completed" if text.strip() else "empty"


def page(url: Any, title: Any = None) -> Page:
    return {"url": str(url), "title": None if title is None else str(title)}


def cost(input_tokens: int | None, output_tokens: int | None, prices: tuple[float, float] | None) -> float | None:
    """US dollars from tokens and prices per million (input, output); None without prices or tokens."""
    if prices is None or input_tokens is None or output_tokens is None:
        return None
    return round((input_tokens * prices[0] + output_tokens * prices[1]) / 1_000_000, 6)
