"""The body of an ingest call: a JSON array of events, or NDJSON (one event a line)."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from libs.common.encoding import loads
from libs.common.errors import BadRequest, ValidationFailed
from libs.common.schemas import is_json_content_type, nul_paths
from services.traffic.schemas import MAX_EVENTS, TrafficEvent

EVENT = TrafficEvent()

NDJSON = ("application/x-ndjson", "application/ndjson", "application/jsonl")


def parse_batch(raw: bytes, content_type: str) -> list[Any]:
    """The events of a body; a body that is not a batch is a 422 for the whole call."""
    if not raw.strip():
        raise ValidationFailed("the body is empty: send a JSON array of events, or NDJSON")
    if content_type in NDJSON:
        items = []
        for number, line in enumerate(raw.splitlines(), start=1):
            if line.strip():
                items.append(_loads(line, f"line {number} is not valid JSON"))
    elif is_json_content_type(content_type):
        items = _loads(raw, "the body is not valid JSON")
        if not isinstance(items, list):
            raise ValidationFailed("the body must be a JSON array of events (or NDJSON)")
    else:
        raise BadRequest("send application/json (an array of events) or application/x-ndjson")
    if not items:
        raise ValidationFailed("the batch holds no event")
    if len(items) > MAX_EVENTS:
        raise ValidationFailed(f"a batch holds at most {MAX_EVENTS} events, this one {len(items)}")
    return items


def _loads(text: bytes, message: str) -> Any:
    try:
        return loads(text)
    except ValueError:
        raise ValidationFailed(message) from None


def first_error(messages: Any, prefix: str = "") -> str:
    """One line from marshmallow's error messages: the first field and what is wrong with it."""
    if isinstance(messages, dict):
        key, value = next(iter(messages.items()))
        name = key if key != "_schema" else ""
        return first_error(value, f"{prefix}{name}: " if name else prefix)
    if isinstance(messages, list) and messages:
        return first_error(messages[0], prefix)
    return f"{prefix}{messages}"


def load_event(item: Any) -> dict[str, Any]:
    """One event of a batch, loaded; ValueError with the message of the first thing wrong."""
    if not isinstance(item, dict):
        raise ValueError("an event is a JSON object")
    nul = nul_paths(item)
    if nul:
        raise ValueError(f"{nul[0]}: Must not contain NUL characters.")
    try:
        event: dict[str, Any] = EVENT.load(item)
    except ValidationError as exc:
        raise ValueError(first_error(exc.messages)) from None
    return event
