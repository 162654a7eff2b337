"""The webhook event types, each with what its `data` holds (docs/architecture.md, "Events: webhooks")."""

from __future__ import annotations

EVENT_TYPES: dict[str, str] = {
    "content.document.created": "a content document (site page) was created; data: the document",
    "content.document.updated": "a content document was changed; data: the document",
    "content.document.published": "a content document was published; data: the document",
    "content.document.unpublished": "a content document went back to draft; data: the document",
    "content.document.deleted": "a content document was deleted; data: the document, with deletedAt",
    "app.created": "an app was created; data: the app",
    "app.updated": "an app (or its config) was changed; data: the app",
    "app.deleted": "an app was deleted; data: the app",
    "app.restored": "a deleted app was restored; data: the app",
    "app.domain.created": "a domain was added to an app; data: the domain",
    "app.domain.verified": "a domain's ownership was verified; data: the domain",
    "app.domain.deleted": "a domain was removed from an app; data: the domain",
    "app.route.created": "a route was added to an app; data: the route",
    "app.route.updated": "a route was changed; data: the route",
    "app.route.deleted": "a route was deleted; data: the route",
    "persona.updated": "a persona was created, changed or deleted; data: the persona",
    "prompt_suggestions.regenerated": "a product's prompt suggestions were regenerated; data: the result",
    "simulation.run.recorded": "an agent-simulation run was recorded; data: the run",
    "simulation.run.completed": "an agent-simulation run ended, completed or failed; data: the run, with its score",
    "api_key.created": "an API key was created; data: the key (never its secret)",
    "api_key.rotated": "an API key was rotated; data: the old key and its successor",
    "api_key.revoked": "an API key was revoked; data: the key",
}
# Sent by `POST /api/v1/webhook-endpoints/{id}/test` only, to that endpoint.
PING = "ping"
ALL = "*"
