"""The whole route table of the personas service."""

from __future__ import annotations

from aiohttp import web

from services.personas import views


def setup_routes(app: web.Application) -> None:
    router = app.router
    router.add_get("/api/v1/products/{productId}/personas", views.personas_list, name="personas_list")
    router.add_post("/api/v1/products/{productId}/personas", views.personas_create, name="personas_create")
    router.add_put("/api/v1/personas/{personaId}", views.personas_update, name="personas_update")
    router.add_delete("/api/v1/personas/{personaId}", views.personas_delete, name="personas_delete")
    router.add_get("/api/v1/products/{productId}/topics", views.topics_list, name="topics_list")
    router.add_post("/api/v1/products/{productId}/topics", views.topics_create, name="topics_create")
    router.add_post(
        "/api/v1/prompt-suggestions/regenerate", views.suggestions_regenerate, name="suggestions_regenerate"
    )
    router.add_get("/api/v1/prompt-suggestions", views.suggestions_list, name="suggestions_list")
    router.add_patch("/api/v1/prompt-suggestions/{suggestionId}", views.suggestions_review, name="suggestions_review")
