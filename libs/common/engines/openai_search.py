"""ChatGPT search: OpenAI's Responses API with the web search tool. The answer's `url_citation`
annotations are its citations; the search call's sources (asked with `include`) the pages retrieved."""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI

from libs.common.engines.access import EngineAccess
from libs.common.engines.reply import Reply, SdkEngine, cost, page, status_of


class OpenAISearch(SdkEngine):
    sdk = AsyncOpenAI

    async def ask(self, prompt: str, web_search: bool = True) -> Reply:
        search: dict[str, Any] = (
            {"tools": [{"type": "web_search"}], "include": ["web_search_call.action.sources"]} if web_search else {}
        )
        response = await self._client.responses.create(model=self._access.model, input=prompt, **search)
        return reply_of(response.model_dump(), self._access)


def reply_of(body: dict[str, Any], access: EngineAccess) -> Reply:
    texts: list[str] = []
    citations = []
    sources = []
    refused = False
    for item in body.get("output") or []:
        if item.get("type") == "web_search_call":
            action = item.get("action") or {}
            sources += [page(source["url"]) for source in action.get("sources") or [] if source.get("url")]
        elif item.get("type") == "message":
            for part in item.get("content") or []:
                if part.get("type") == "refusal":
                    refused = True
                elif part.get("type") == "output_text":
                    texts.append(part.get("text") or "")
                    citations += [
                        page(note["url"], note.get("title"))
                        for note in part.get("annotations") or []
                        if note.get("type") == "url_citation" and note.get("url")
                    ]
    usage = body.get("usage") or {}
    text = "".join(texts)
    tokens = usage.get("input_tokens"), usage.get("output_tokens")
    return Reply(
        text,
        body.get("model") or access.model,
        status_of(text, refused),
        citations,
        sources,
        *tokens,
        cost(*tokens, access.prices),
    )
