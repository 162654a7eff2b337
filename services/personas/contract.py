"""The personas service's public routes: personas, topics and prompt suggestions.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from marshmallow import Schema

from libs.contract.event import Event
from libs.contract.route import Route
from services.personas import schemas as personas
from services.personas import tracking_schemas as tracking

PART = "personas"


def _of_product(
    plural: str,
    id_param: str,
    tag: str,
    scopes: tuple[str, str],
    shapes: tuple[type[Schema], type[Schema], type[Schema], type[Schema], type[Schema]],
    summaries: tuple[str, str, str, str],
) -> tuple[Route, ...]:
    """A product's resources, listed and created under the product, read and changed by their own id:
    `shapes` are the list's query and answer, the new one's body, one resource, and a change's body."""
    read, write = scopes
    query, listed, create, one, change = shapes
    listing, adding, getting, changing = summaries
    collection, item = f"/api/v1/products/{{productId}}/{plural}", f"/api/v1/{plural}/{{{id_param}}}"
    return (
        Route(
            "GET",
            collection,
            PART,
            read,
            f"{plural}_list",
            listing,
            product_param="productId",
            query=query,
            response=listed,
            tag=tag,
        ),
        Route(
            "POST",
            collection,
            PART,
            write,
            f"{plural}_create",
            adding,
            product_param="productId",
            body=create,
            response=one,
            status=201,
            tag=tag,
        ),
        Route("GET", item, PART, read, f"{plural}_get", getting, response=one, tag=tag),
        Route("PATCH", item, PART, write, f"{plural}_update", changing, body=change, response=one, tag=tag),
    )


ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/api/v1/products/{productId}/personas",
        PART,
        "products:read",
        "personas_list",
        "List a product's active personas",
        product_param="productId",
        query=personas.PageQuery,
        response=personas.PersonaList,
        tag="Personas",
    ),
    Route(
        "POST",
        "/api/v1/products/{productId}/personas",
        PART,
        "products:write",
        "personas_create",
        "Create a persona of a product",
        product_param="productId",
        body=personas.PersonaCreate,
        response=personas.Persona,
        status=201,
        tag="Personas",
        versioned=True,
    ),
    Route(
        "GET",
        "/api/v1/personas/{personaId}",
        PART,
        "products:read",
        "personas_get",
        "Get an active persona",
        response=personas.Persona,
        tag="Personas",
        versioned=True,
    ),
    Route(
        "PUT",
        "/api/v1/personas/{personaId}",
        PART,
        "products:write",
        "personas_update",
        "Update a persona's supplied fields",
        body=personas.PersonaUpdate,
        response=personas.Persona,
        tag="Personas",
        versioned=True,
        if_match=True,
    ),
    Route(
        "DELETE",
        "/api/v1/personas/{personaId}",
        PART,
        "products:write",
        "personas_delete",
        "Delete a persona, freeing its name",
        response=personas.Persona,
        tag="Personas",
        versioned=True,
        if_match=True,
    ),
    Route(
        "GET",
        "/api/v1/products/{productId}/topics",
        PART,
        "prompts:read",
        "topics_list",
        "List a product's topics",
        product_param="productId",
        query=personas.PageQuery,
        response=personas.TopicList,
        tag="Topics",
    ),
    Route(
        "POST",
        "/api/v1/products/{productId}/topics",
        PART,
        "prompts:write",
        "topics_create",
        "Create a topic of a product",
        product_param="productId",
        body=personas.TopicCreate,
        response=personas.Topic,
        status=201,
        tag="Topics",
    ),
    Route(
        "POST",
        "/api/v1/prompt-suggestions/regenerate",
        PART,
        "prompts:write",
        "prompt_suggestions_regenerate",
        "Regenerate a product's prompt suggestions",
        product_body="productId",
        timeout=30.0,
        body=personas.RegenerateRequest,
        response=personas.RegenerateResult,
        errors=(400, 401, 403, 404, 422, 500),
        tag="Prompt suggestions",
    ),
    Route(
        "GET",
        "/api/v1/prompt-suggestions",
        PART,
        "prompts:read",
        "prompt_suggestions_list",
        "List a product's prompt suggestions",
        product_query="productId",
        query=personas.SuggestionListQuery,
        response=personas.SuggestionList,
        tag="Prompt suggestions",
    ),
    Route(
        "PATCH",
        "/api/v1/prompt-suggestions/{suggestionId}",
        PART,
        "prompts:write",
        "prompt_suggestions_review",
        "Accept, reject or reopen a prompt suggestion",
        body=personas.SuggestionReview,
        response=personas.SuggestionReviewed,
        tag="Prompt suggestions",
    ),
    *_of_product(
        "competitors",
        "competitorId",
        "Competitors",
        ("products:read", "products:write"),
        (
            tracking.PageQuery,
            tracking.CompetitorList,
            tracking.CompetitorCreate,
            tracking.Competitor,
            tracking.CompetitorUpdate,
        ),
        (
            "List a product's competitors, newest first",
            "Add a competitor of a product",
            "Get a competitor",
            "Change a competitor's name, aliases or domains",
        ),
    ),
    Route(
        "DELETE",
        "/api/v1/competitors/{competitorId}",
        PART,
        "products:write",
        "competitors_delete",
        "Delete a competitor, freeing its name",
        response=tracking.Competitor,
        tag="Competitors",
    ),
    *_of_product(
        "prompts",
        "promptId",
        "Prompts",
        ("prompts:read", "prompts:write"),
        (tracking.PromptListQuery, tracking.PromptList, tracking.PromptCreate, tracking.Prompt, tracking.PromptUpdate),
        (
            "List a product's tracked prompts, newest first",
            "Track a prompt of a product",
            "Get a tracked prompt",
            "Change a tracked prompt; a new text is a new version",
        ),
    ),
    Route(
        "POST",
        "/api/v1/prompts/{promptId}/archive",
        PART,
        "prompts:write",
        "prompts_archive",
        "Archive a tracked prompt",
        response=tracking.Prompt,
        tag="Prompts",
    ),
    Route(
        "POST",
        "/api/v1/prompts/{promptId}/unarchive",
        PART,
        "prompts:write",
        "prompts_unarchive",
        "Make an archived prompt active again",
        response=tracking.Prompt,
        tag="Prompts",
    ),
)

EVENTS: tuple[Event, ...] = (
    Event("persona.updated", "A persona was created, changed or deleted.", personas.Persona, "Personas"),
    Event(
        "prompt_suggestions.regenerated",
        "A product's prompt suggestions were regenerated.",
        personas.SuggestionsRegenerated,
        "Prompt suggestions",
    ),
)
