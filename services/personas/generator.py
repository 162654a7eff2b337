"""Prompt-suggestion generators: what one topic's job turns into prompts.

The regenerate endpoint knows only the `SuggestionGenerator` protocol; the default is
deterministic and template-based, and a language-model provider is another class with the same
`generate` method, chosen in `create_app`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from libs.common.internal_token import Product

# Enough to review in one sitting; a product with many personas still gets a bounded list.
MAX_PROMPTS_PER_TOPIC = 24

TOPIC_TEMPLATES = (
    "What are the best options for {topic}?",
    "How does {product} help with {topic}?",
    "Which tools do experts recommend for {topic}, and is {product} one of them?",
    "What should I look for when choosing a solution for {topic}?",
)
PERSONA_TEMPLATES = (
    "For {persona}: what are the best options for {topic}?",
    "For {persona}: is {product} a good choice for {topic}?",
)


@dataclass(frozen=True)
class TopicBrief:
    id: str
    name: str
    description: str | None


@dataclass(frozen=True)
class PersonaBrief:
    id: str
    name: str
    description: str
    system_prompt: str | None


@dataclass(frozen=True)
class GenerationInput:
    """Everything one topic's job may draw on."""

    product: Product
    topic: TopicBrief
    personas: tuple[PersonaBrief, ...]


@dataclass(frozen=True)
class GeneratedPrompt:
    prompt: str
    persona_id: str | None = None


class SuggestionGenerator(Protocol):
    async def generate(self, source: GenerationInput) -> list[GeneratedPrompt]:
        """The prompts suggested for one topic; raising fails the whole regeneration."""
        ...


class TemplateGenerator:
    """Fills fixed templates with the topic, the product and each persona: the same input always
    gives the same prompts, in the same order."""

    async def generate(self, source: GenerationInput) -> list[GeneratedPrompt]:
        values = {"topic": source.topic.name, "product": source.product.name}
        prompts = [GeneratedPrompt(template.format(**values)) for template in TOPIC_TEMPLATES]
        for persona in source.personas:
            prompts += [
                GeneratedPrompt(template.format(**values, persona=persona.name), persona.id)
                for template in PERSONA_TEMPLATES
            ]
        return prompts[:MAX_PROMPTS_PER_TOPIC]
