"""The default, template-based suggestion generator."""

from __future__ import annotations

from libs.common.internal_token import Product
from services.personas.generator import (
    MAX_PROMPTS_PER_TOPIC,
    GeneratedPrompt,
    GenerationInput,
    PersonaBrief,
    TemplateGenerator,
    TopicBrief,
)

PRODUCT = Product(id="p-1", name="Acme Analytics", slug="acme-analytics")
TOPIC = TopicBrief(id="t-1", name="churn prediction", description=None)


def persona(index: int) -> PersonaBrief:
    return PersonaBrief(id=f"persona-{index}", name=f"Persona {index}", description="d", system_prompt=None)


async def test_without_personas_it_asks_about_the_topic_and_the_product():
    prompts = await TemplateGenerator().generate(GenerationInput(PRODUCT, TOPIC, ()))
    assert prompts == [
        GeneratedPrompt("What are the best options for churn prediction?"),
        GeneratedPrompt("How does Acme Analytics help with churn prediction?"),
        GeneratedPrompt("Which tools do experts recommend for churn prediction, and is Acme Analytics one of them?"),
        GeneratedPrompt("What should I look for when choosing a solution for churn prediction?"),
    ]


async def test_each_persona_adds_prompts_in_its_voice():
    prompts = await TemplateGenerator().generate(GenerationInput(PRODUCT, TOPIC, (persona(1),)))
    assert prompts[4:] == [
        GeneratedPrompt("For Persona 1: what are the best options for churn prediction?", "persona-1"),
        GeneratedPrompt("For Persona 1: is Acme Analytics a good choice for churn prediction?", "persona-1"),
    ]


async def test_the_same_input_gives_the_same_prompts():
    source = GenerationInput(PRODUCT, TOPIC, (persona(1), persona(2)))
    assert await TemplateGenerator().generate(source) == await TemplateGenerator().generate(source)


async def test_many_personas_are_capped_per_topic():
    source = GenerationInput(PRODUCT, TOPIC, tuple(persona(index) for index in range(50)))
    prompts = await TemplateGenerator().generate(source)
    assert len(prompts) == MAX_PROMPTS_PER_TOPIC
    assert prompts[-1].persona_id == "persona-9"


async def test_braces_in_names_are_kept_literally():
    topic = TopicBrief(id="t-2", name="{product} templates", description=None)
    prompts = await TemplateGenerator().generate(GenerationInput(PRODUCT, topic, ()))
    assert prompts[0].prompt == "What are the best options for {product} templates?"
