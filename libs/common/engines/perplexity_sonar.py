"""Perplexity Sonar through Perplexity's own SDK (perplexityai): chat completions whose `citations`
are the URLs the answer cites and whose `search_results` the pages retrieved; the usage carries
Perplexity's own cost."""

from __future__ import annotations

from typing import Any

from perplexity import AsyncPerplexity

from libs.common.engines.access import EngineAccess
from libs.common.engines.reply import Reply, SdkEngine, cost, page, status_of


class PerplexitySonar(SdkEngine):
    sdk = AsyncPerplexity

    async def ask(self, prompt: str, web_search: bool = True) -> Reply:
        # Sonar searches unless told not to; analytics' calls send what they always sent.
        search: dict[str, Any] = {} if web_search else {"disable_search": True}
        completion = await self._client.chat.completions.create(
            model=self._access.model, messages=[{"role": "user", "content": prompt}], **search
        )
        return reply_of(completion.model_dump(), self._access)


def reply_of(body: dict[str, Any], access: EngineAccess) -> Reply:
    choices = body.get("choices") or [{}]
    content = (choices[0].get("message") or {}).get("content") or ""
    text = content if isinstance(content, str) else "".join(part.get("text") or "" for part in content)
    titles = {found.get("url"): found.get("title") for found in body.get("search_results") or []}
    citations = [page(url, titles.get(url)) for url in body.get("citations") or []]
    sources = [page(found["url"], found.get("title")) for found in body.get("search_results") or [] if found.get("url")]
    usage = body.get("usage") or {}
    tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
    reported = (usage.get("cost") or {}).get("total_cost")
    spent = float(reported) if reported is not None else cost(*tokens, access.prices)
    return Reply(text, body.get("model") or access.model, status_of(text, False), citations, sources, *tokens, spent)
