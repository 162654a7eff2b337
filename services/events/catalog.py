"""Every webhook event type, in one catalog: the concatenation of the `EVENTS` each announcing
part declares in its contract.py (libs/contract/event.py), as the route table concatenates routes."""

from __future__ import annotations

from gateway import contract as gateway
from libs.contract.event import Event
from services.apps import contract as apps
from services.content import contract as content
from services.personas import contract as personas
from services.simulations import contract as simulations

EVENTS: tuple[Event, ...] = (
    *content.EVENTS,
    *apps.EVENTS,
    *personas.EVENTS,
    *simulations.EVENTS,
    *gateway.EVENTS,
)
BY_TYPE: dict[str, Event] = {event.type: event for event in EVENTS}
