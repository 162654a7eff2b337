"""Example events for `POST /api/v1/webhook-endpoints/{id}/test`: the `data` of each event type of the
catalog as the API reference shows it (gateway/edge/openapi.py makes it from the type's declared
schema), so a test event is exactly the documented example and cannot drift from the declaration."""

from __future__ import annotations

import copy
import functools
from typing import Any

from gateway.edge.openapi import build_document

# The reference's examples do not depend on where it is served.
PUBLIC_URL = "https://api.example.com"


@functools.cache
def _examples() -> dict[str, Any]:
    webhooks = build_document((), PUBLIC_URL)["webhooks"]
    return {
        event_type: operation["post"]["requestBody"]["content"]["application/json"]["example"]["data"]
        for event_type, operation in webhooks.items()
    }


def example_data(event_type: str) -> Any:
    """The example `data` of a catalog event type (a copy: the caller may change it)."""
    return copy.deepcopy(_examples()[event_type])
