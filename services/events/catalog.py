"""Every webhook event type, in one catalog: the concatenation of the `EVENTS` each announcing
part declares in its contract.py (libs/contract/event.py), as the route table concatenates routes;
the gateway's (`api_key.*`) are declared on the ground floor (libs/contract/api_keys.py), since a
service imports nothing of the gateway."""

from __future__ import annotations

from libs.contract.api_keys import API_KEY_EVENTS
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
    *API_KEY_EVENTS,
)
BY_TYPE: dict[str, Event] = {event.type: event for event in EVENTS}
