"""Example events for `POST /api/v1/webhook-endpoints/{id}/test`: the `data` of each event type of the
catalog as the API reference shows it, made from the type's declared schema as the reference's
examples are (libs/common/openapi_examples.py), so a test event is the documented example and
cannot drift from the declaration."""

from __future__ import annotations

import copy
import functools
from typing import Any

from libs.common.openapi_examples import schema_examples
from services.events.catalog import EVENTS


@functools.cache
def _examples() -> dict[str, Any]:
    return schema_examples({event.type: event.data for event in EVENTS})


def example_data(event_type: str) -> Any:
    """The example `data` of a catalog event type (a copy: the caller may change it)."""
    return copy.deepcopy(_examples()[event_type])
