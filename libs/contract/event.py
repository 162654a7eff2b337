"""The webhook events of a part, declared once beside its routes.

Each part that announces events lists them in its `contract.py` as `EVENTS`: the type, what
happened, and the schema of the event's `data` (the resource as the API shows it, most often).
The catalog (services/events/catalog.py) is their concatenation: the events part accepts
subscriptions to exactly these types, the OpenAPI document lists them under `webhooks`
(gateway/edge/openapi.py), and the tests check every payload they receive against its `data` schema.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from marshmallow import Schema


@dataclass(frozen=True)
class Event:
    type: str
    summary: str
    # The schema of the event's `data`.
    data: builtins.type[Schema]
    # The OpenAPI tag the event is listed under (one of gateway/edge/openapi.py's TAGS).
    tag: str

    def __post_init__(self) -> None:
        if not self.summary.endswith("."):
            raise ValueError(f"event {self.type}: its summary is a sentence ending with a period")
