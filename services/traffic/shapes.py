"""AI traffic's answers made from their response schemas (libs/common/shapes.py): a batch's
outcome (recording.py), and `LOG_ENTRY.of(row)` for a stored event of either store (store.py).
The summary's shapes are in summary.py, beside the rules of its rates."""

from __future__ import annotations

from libs.common.shapes import Shape, as_text
from services.traffic import schemas

INGEST_RESULT = Shape(schemas.TrafficIngestResult)
# Ids and the client's network as text: PostgreSQL reads them as a uuid and a cidr.
LOG_ENTRY = Shape(
    schemas.TrafficLogEntry,
    computed={name: as_text(name) for name in ("app_id", "domain_id", "client_network")},
)
