"""The personas service's public routes: personas, topics and prompt suggestions.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.event import Event
from libs.contract.route import Route
from services.personas import schemas as personas

PART = "personas"

ROUTES: tuple[Route, ...] = (
    Route("GET", "/api/v1/products/{productId}/personas", PART, "products:read", "personas_list",
          "List a product's active personas", product_param="productId",
          query=personas.PageQuery, response=personas.PersonaList, tag="Personas"),
    Route("POST", "/api/v1/products/{productId}/personas", PART, "products:write", "personas_create",
          "Create a persona of a product", product_param="productId",
          body=personas.PersonaCreate, response=personas.Persona, status=201, tag="Personas", versioned=True),
    Route("GET", "/api/v1/personas/{personaId}", PART, "products:read", "personas_get",
          "Get an active persona", response=personas.Persona, tag="Personas", versioned=True),
    Route("PUT", "/api/v1/personas/{personaId}", PART, "products:write", "personas_update",
          "Update a persona's supplied fields", body=personas.PersonaUpdate, response=personas.Persona,
          tag="Personas", versioned=True, if_match=True),
    Route("DELETE", "/api/v1/personas/{personaId}", PART, "products:write", "personas_delete",
          "Delete a persona, freeing its name", response=personas.Persona, tag="Personas", versioned=True,
          if_match=True),
    Route("GET", "/api/v1/products/{productId}/topics", PART, "prompts:read", "topics_list",
          "List a product's topics", product_param="productId",
          query=personas.PageQuery, response=personas.TopicList, tag="Topics"),
    Route("POST", "/api/v1/products/{productId}/topics", PART, "prompts:write", "topics_create",
          "Create a topic of a product", product_param="productId",
          body=personas.TopicCreate, response=personas.Topic, status=201, tag="Topics"),
    Route("POST", "/api/v1/prompt-suggestions/regenerate", PART, "prompts:write", "prompt_suggestions_regenerate",
          "Regenerate a product's prompt suggestions", product_body="productId", timeout=30.0,
          body=personas.RegenerateRequest, response=personas.RegenerateResult,
          errors=(400, 401, 403, 404, 422, 500), tag="Prompt suggestions"),
    Route("GET", "/api/v1/prompt-suggestions", PART, "prompts:read", "prompt_suggestions_list",
          "List a product's prompt suggestions", product_query="productId",
          query=personas.SuggestionListQuery, response=personas.SuggestionList, tag="Prompt suggestions"),
    Route("PATCH", "/api/v1/prompt-suggestions/{suggestionId}", PART, "prompts:write",
          "prompt_suggestions_review", "Accept, reject or reopen a prompt suggestion",
          body=personas.SuggestionReview, response=personas.Suggestion, tag="Prompt suggestions"),
)  # fmt: skip

EVENTS: tuple[Event, ...] = (
    Event("persona.updated", "A persona was created, changed or deleted.", personas.Persona, "Personas"),
    Event(
        "prompt_suggestions.regenerated",
        "A product's prompt suggestions were regenerated.",
        personas.SuggestionsRegenerated,
        "Prompt suggestions",
    ),
)
