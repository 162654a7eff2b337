"""Which engines a prompt is asked of: those the run names, else the prompt's own, else every engine
this deployment can call (the product's default)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def engines_for(prompt: dict[str, Any], requested: Sequence[str] | None, configured: Sequence[str]) -> list[str]:
    if requested:
        return list(requested)
    return list(prompt["engines"]) or list(configured)


def tasks_of(prompt: dict[str, Any], engines: list[str], samples: int) -> list[dict[str, Any]]:
    """A prompt's tasks in a run: each engine asked `samples` times."""
    return [
        {
            "prompt_id": prompt["id"],
            "prompt_version": prompt["version"],
            "prompt_text": prompt["text"],
            "topic_id": prompt["topicId"],
            "engine": engine,
            "sample": sample,
        }
        for engine in engines
        for sample in range(1, samples + 1)
    ]
