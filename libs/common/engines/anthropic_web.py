"""Claude with web search: Anthropic's Messages API with the server-side web search tool. Text
blocks' `web_search_result_location` citations are the answer's citations; the tool's results the
pages retrieved."""

from __future__ import annotations

from typing import Any

from anthropic import AsyncAnthropic

from libs.common.engines.access import EngineAccess
from libs.common.engines.reply import Reply, SdkEngine, cost, page, status_of

MAX_TOKENS = 2048
SEARCHES = 5


class AnthropicWeb(SdkEngine):
    sdk = AsyncAnthropic

    async def ask(self, prompt: str, web_search: bool = True) -> Reply:
        search: dict[str, Any] = (
            {"tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": SEARCHES}]}
            if web_search
            else {}
        )
        message = await self._client.messages.create(
            model=self._access.model, max_tokens=MAX_TOKENS, messages=[{"role": "user", "content": prompt}], **search
        )
        return reply_of(message.model_dump(), self._access)


def reply_of(body: dict[str, Any], access: EngineAccess) -> Reply:
    texts: list[str] = []
    citations = []
    sources = []
    for block in body.get("content") or []:
        if block.get("type") == "text":
            texts.append(block.get("text") or "")
            citations += [
                page(cited["url"], cited.get("title"))
                for cited in block.get("citations") or []
                if cited.get("type") == "web_search_result_location" and cited.get("url")
            ]
        elif block.get("type") == "web_search_tool_result" and isinstance(block.get("content"), list):
            sources += [
                page(found["url"], found.get("title"))
                for found in block["content"]
                if found.get("type") == "web_search_result" and found.get("url")
            ]
    usage = body.get("usage") or {}
    text = "".join(texts)
    tokens = usage.get("input_tokens"), usage.get("output_tokens")
    refused = body.get("stop_reason") == "refusal"
    return Reply(
        text,
        body.get("model") or access.model,
        status_of(text, refused),
        citations,
        sources,
        *tokens,
        cost(*tokens, access.prices),
    )
