"""One local server speaking the three vendors' documented wire formats, as their SDKs call them:
OpenAI's Responses API (`POST /v1/responses`), Anthropic's Messages API (`POST /v1/messages`) and
Perplexity's chat completions (`POST /chat/completions`). Each answers a prompt with the text the
test gave for it, cites the URLs given, and can fail its first calls (429 or 500) to show the SDKs'
retries."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

KEY = "sk-test-local"


@dataclass
class Script:
    """What the vendors answer: text and cited URLs by prompt, and failures to send first."""

    text: dict[str, str] = field(default_factory=dict)
    cited: dict[str, list[str]] = field(default_factory=dict)
    # prompt -> the gate its answers wait at until the test opens it
    held: dict[str, asyncio.Event] = field(default_factory=dict)
    # (vendor, prompt) -> statuses to answer before the first success
    failures: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    bodies: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def answer(self, prompt: str) -> tuple[str, list[str]]:
        return self.text.get(prompt, f"No brand named for: {prompt}"), self.cited.get(prompt, [])


SCRIPT: web.AppKey[Script] = web.AppKey("script", Script)
_ids = itertools.count(1)


async def _fail(script: Script, vendor: str, prompt: str) -> web.Response | None:
    if (gate := script.held.get(prompt)) is not None:
        await gate.wait()
    pending = script.failures.get((vendor, prompt)) or []
    if pending:
        status = pending.pop(0)
        return web.json_response({"error": {"message": "try again", "type": "rate_limit_error"}}, status=status)
    return None


async def openai_responses(request: web.Request) -> web.Response:
    script: Script = request.app[SCRIPT]
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    body = await request.json()
    script.bodies.append(("openai", body))
    if (failed := await _fail(script, "openai", body["input"])) is not None:
        return failed
    text, cited = script.answer(body["input"])
    annotations = [
        {"type": "url_citation", "start_index": 0, "end_index": len(text), "url": url, "title": f"Page {index}"}
        for index, url in enumerate(cited)
    ]
    return web.json_response(
        {
            "id": f"resp_{next(_ids)}",
            "object": "response",
            "created_at": 1764300000,
            "status": "completed",
            "model": body["model"],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": body.get("tools", []),
            "output": [
                {
                    "type": "web_search_call",
                    "id": "ws_1",
                    "status": "completed",
                    "action": {
                        "type": "search",
                        "query": body["input"],
                        "sources": [{"type": "url", "url": url} for url in [*cited, "https://retrieved.example.org/r"]],
                    },
                },
                {
                    "type": "message",
                    "id": "msg_1",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}],
                },
            ],
            "usage": {
                "input_tokens": 20,
                "output_tokens": 40,
                "total_tokens": 60,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
    )


async def anthropic_messages(request: web.Request) -> web.Response:
    script: Script = request.app[SCRIPT]
    # The SDK sends the key as `x-api-key` or, in its newer versions, as a bearer token.
    assert KEY in (request.headers.get("x-api-key"), request.headers.get("Authorization", "").removeprefix("Bearer "))
    body = await request.json()
    script.bodies.append(("anthropic", body))
    if (failed := await _fail(script, "anthropic", body["messages"][0]["content"])) is not None:
        return failed
    text, cited = script.answer(body["messages"][0]["content"])
    return web.json_response(
        {
            "id": f"msg_{next(_ids)}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_1",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": url,
                            "title": f"Result {index}",
                            "encrypted_content": "x",
                            "page_age": None,
                        }
                        for index, url in enumerate([*cited, "https://retrieved.example.org/r"])
                    ],
                },
                {
                    "type": "text",
                    "text": text,
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": url,
                            "title": f"Result {index}",
                            "encrypted_index": "x",
                            "cited_text": text[:20],
                        }
                        for index, url in enumerate(cited)
                    ],
                },
            ],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 50, "server_tool_use": {"web_search_requests": 1}},
        }
    )


async def perplexity_completions(request: web.Request) -> web.Response:
    script: Script = request.app[SCRIPT]
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    body = await request.json()
    script.bodies.append(("perplexity", body))
    if (failed := await _fail(script, "perplexity", body["messages"][0]["content"])) is not None:
        return failed
    text, cited = script.answer(body["messages"][0]["content"])
    message = {"role": "assistant", "content": text}
    return web.json_response(
        {
            "id": f"pplx_{next(_ids)}",
            "model": body["model"],
            "created": 1764300000,
            "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message, "delta": message}],
            "citations": cited,
            "search_results": [
                {"title": f"Result {index}", "url": url, "date": None}
                for index, url in enumerate([*cited, "https://retrieved.example.org/r"])
            ],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 30,
                "total_tokens": 40,
                "cost": {"input_tokens_cost": 0.00001, "output_tokens_cost": 0.00003, "total_cost": 0.005},
            },
        }
    )


def vendors_app(script: Script) -> web.Application:
    app = web.Application()
    app[SCRIPT] = script
    app.router.add_post("/v1/responses", openai_responses)
    app.router.add_post("/v1/messages", anthropic_messages)
    app.router.add_post("/chat/completions", perplexity_completions)
    return app


def vendor_environ(base_url: str) -> dict[str, str]:
    """The analytics part's settings that point every engine at the local server."""
    return {
        "OPENAI_API_KEY": KEY,
        "OPENAI_BASE_URL": f"{base_url}/v1",
        "OPENAI_PRICE_PER_MTOK": "0.4,1.6",
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": base_url,
        "PERPLEXITY_API_KEY": KEY,
        "PERPLEXITY_BASE_URL": base_url,
        "ENGINE_RETRIES": "2",
        "ENGINE_TIMEOUT_SECONDS": "10",
    }
